"""``python -m mnemo``: the same command line as ``mnemo``."""

from mnemo.cli.main import app

if __name__ == "__main__":
    app(prog_name="mnemo")
