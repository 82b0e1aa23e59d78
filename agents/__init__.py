"""The LangGraph side of Content Studio: state, artifacts, supervisor and one module per agent."""
