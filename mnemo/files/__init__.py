"""`agent-cli`'s file store: every fact, turn and summary also as a Markdown file.

Enabled by the ``files_dir`` setting (``MNEMO_FILES_DIR``). :mod:`.layout` holds the paths and
the front matter, :mod:`.snapshot` the index of what is on disk, :mod:`.mirror` the
store -> files direction, :mod:`.sync` the files -> store direction and the startup
reconcile, :mod:`.watcher` the background watcher, :mod:`.markdown` export and import. See
docs/files.md.
"""
