"""HTTP routes, one module per resource: `agent` (runs, threads, inbox), `creatives` (creatives, assets),
`versions` (a creative's versions, restore)."""
