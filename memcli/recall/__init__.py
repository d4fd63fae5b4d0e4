"""What memory goes into a prompt: the block inject prints."""
