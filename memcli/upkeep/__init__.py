"""Looking after a memory tree: init, status, compaction, migration."""
