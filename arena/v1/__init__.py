"""Generated protobuf and gRPC code of `proto/arena/v1/` (regenerate with `make proto`)."""
