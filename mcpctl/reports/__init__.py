"""What each command says, as data, and text made safe to show."""
