"""The engine: carries submitted transfers leg by leg over the rails (rail I/O), and the
sandbox helpers that stand in for the outside world."""
