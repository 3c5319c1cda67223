"""Which workspace files a launch reaches, and their content digests."""
