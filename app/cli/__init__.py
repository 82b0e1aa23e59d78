"""The `studio` command line: `main` builds the typer app; one module per command group (run, notes,
creatives, users, api, doctor, db copy-to) and the server's `--workers` supervisor."""
