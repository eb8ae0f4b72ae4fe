import chainercv  # noqa: F401
from chainermn import create_communicator  # noqa: F401
