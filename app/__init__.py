"""The web side of Content Studio: settings, HTTP app, run manager and the `studio` CLI."""
