"""The studio's Chinese label table for the CLI and the HTTP layer (the table itself is `tools.labels`)."""

from tools.labels import FALLBACK, TABLES, agent_label, key_of, label, labels, model_label

__all__ = ["FALLBACK", "TABLES", "agent_label", "key_of", "label", "labels", "model_label"]
