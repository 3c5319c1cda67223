from mcpctl.cli.app import main

main()
