"""What agents call: LLM gateway, knowledge store, research tools, images and storage.

`tools` never imports `agents` or `app`; every component takes its configuration as arguments.
"""
