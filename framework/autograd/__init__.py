"""autograd (placeholder until the recording module lands)."""
