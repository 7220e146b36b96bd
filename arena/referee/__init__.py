"""The referee: hosts matches, talks to bots over gRPC, enforces clocks and strikes."""
