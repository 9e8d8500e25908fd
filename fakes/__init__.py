"""Stand-in servers (an OpenAI-compatible LLM over real HTTP, recorded real answers replayed):
shared by the tests and the benchmarks, which never import each other."""
