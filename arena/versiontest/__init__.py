"""Version tests: is a candidate bot stronger than a baseline? Paired sets and a GSPRT."""
