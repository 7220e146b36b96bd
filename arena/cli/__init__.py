"""The `arena` command line.

gRPC's C core logs INFO lines of its own to stderr (e.g. "Other threads are currently calling
into gRPC, skipping fork() handlers" when `arena bot test` starts a bot program): a user of the
command line sees one line per mistake, never such noise. Set before anything imports grpc.
"""

import os

os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
