"""The npx operator catalogue (filled in by the operator modules)."""

__all__: list[str] = []
