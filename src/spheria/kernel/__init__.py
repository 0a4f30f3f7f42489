"""The kernel under every game: the game API, options, the registry and the shared sentences."""
