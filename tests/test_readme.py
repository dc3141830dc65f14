"""The session shown in the README is what `tileforth` prints for those lines."""
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_session_is_what_tileforth_prints():
    text = README.read_text()
    block = re.search(r"<!-- readme session:.*?-->\n```\n(.*?)```", text, re.S).group(1)
    typed = [ln[2:] for ln in block.splitlines() if ln.startswith("> ")]
    shown = [ln for ln in block.splitlines() if not ln.startswith("> ")]
    proc = subprocess.run([sys.executable, "-m", "tileforth.repl.cli"], input="\n".join(typed) + "\n",
                          capture_output=True, text=True, timeout=120)
    printed = (proc.stdout + proc.stderr).splitlines()
    assert [ln.rstrip() for ln in printed] == [ln.rstrip() for ln in shown]
