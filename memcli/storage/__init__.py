"""The files in .memory/: paths, safe writes and the lock, the entry format, entry files, conversations, checkpoints."""
