"""Arena: the referee, storage, ratings, pairing, the CLI, the bot SDK and reference bots."""

import os

# Arena processes start other processes (bots, Celery's pool) while gRPC may be in use; gRPC's
# fork handlers can then hang a child before it execs. No Arena process needs gRPC across a fork
# (Celery's parent makes no channels), so they are off unless the environment says otherwise.
# This must happen before grpc is first imported.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")
