from mcpctl.cli.main import main

main()
