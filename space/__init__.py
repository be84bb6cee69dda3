"""The JieZi Space (Gradio 6): exegesis demo, dataset explorer, leaderboard and submission."""
