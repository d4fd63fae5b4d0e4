"""The search cache in .memory/.vault/: the tantivy index, its freshness, ranking, words and snippets."""
