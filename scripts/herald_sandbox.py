"""What the Python tests and scripts share about `herald sandbox`: starting one on a free port and
reading the herald.env it writes (the HERALD_APNS_*, HERALD_FCM_* and HERALD_EXPO_* settings)."""

import os
import shlex
import subprocess
import time


def read_env(path):
    """The settings of a herald.env file, unquoted as the shell would."""
    settings = {}
    with open(path) as lines:
        for line in lines:
            if "=" in line and not line.startswith("#"):
                name, value = line.strip().split("=", 1)
                settings[name] = shlex.split(value)[0]
    return settings


def start_sandbox(herald, state_dir, timeout=30):
    """Starts `herald sandbox --port 0` keeping its state in state_dir; answers the process and its
    settings once herald.env is written (it names the port)."""
    process = subprocess.Popen([herald, "sandbox", "--port", "0", "--state-dir", state_dir],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    env_file = os.path.join(state_dir, "herald.env")
    deadline = time.monotonic() + timeout
    while not os.path.exists(env_file):
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            raise RuntimeError("herald sandbox did not start")
        time.sleep(0.1)
    return process, read_env(env_file)
