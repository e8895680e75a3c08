"""examples/python/agent.py without a language model: it answers from the packed context."""

import os
import pathlib
import subprocess
import sys

AGENT = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python" / "agent.py"


def test_agent_answers_from_recalled_context(tmp_path):
    config = tmp_path / "engram.toml"
    config.write_text('[embedder]\nkind = "none"\n')
    environment = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_LLM_")}
    script = "My sister Maya lives in Porto.\nI play the violin on Sundays.\nWhere does Maya live?\n"
    completed = subprocess.run(
        [sys.executable, str(AGENT), "--store", str(tmp_path / "agent.db"), "--user", "alice",
         "--config", str(config)],
        input=script, capture_output=True, text=True, env=environment, check=False)
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.splitlines()
    # The first two messages find nothing relevant; the question recalls the first message.
    assert lines[0] == "(no language model configured, and nothing relevant remembered)"
    assert lines[1] == lines[0]
    assert lines[2] == "(no language model configured; the context I would answer from)"
    assert "alice: My sister Maya lives in Porto." in "\n".join(lines[3:])
