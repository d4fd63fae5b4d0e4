"""Everything that runs git: the repository lookup, the merge driver, resolve, and the git hooks."""
