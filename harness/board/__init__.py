"""The JieZi-Bench leaderboard: validate, score and store submissions; list, rank and verify rows."""
