"""Interoperability: the authors' official layouts (import / export) and lmms-eval (task
folder, judge bridge, importing its ``--log_samples`` runs)."""
