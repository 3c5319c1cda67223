"""The client tier: other AI clients' config files, read and (in write/) written."""
