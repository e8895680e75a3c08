#!/usr/bin/env python3
"""A chat agent with long-term memory: engram stores every turn and recalls context before
each answer.

    python3 examples/python/agent.py --store agent.db --user alice
    > My sister Maya lives in Porto.
    > Where does Maya live?

With ENGRAM_LLM_BASE_URL set (any OpenAI-compatible endpoint, e.g. http://localhost:11434/v1),
the agent sends the recalled context, the answer instructions and the message to
{base}/chat/completions (model ENGRAM_LLM_MODEL, default "gpt-4o-mini"; key
ENGRAM_LLM_API_KEY, if the endpoint needs one). Without it, the agent answers from the packed
context alone: it prints the context it would give the model. Input is read line by line from
stdin, so the agent can be scripted: printf 'hi\\nwhat did I say?\\n' | agent.py
"""

import argparse
import json
import os
import pathlib
import sys
import urllib.request

import engram


def ask_model(base_url, context, instructions, message, history):
    """The model's reply, from an OpenAI-compatible /chat/completions endpoint."""
    system = (instructions + "\n\n" + context).strip()
    messages = [{"role": "system", "content": system}] + history[-6:] + [
        {"role": "user", "content": message}]
    body = json.dumps({"model": os.environ.get("ENGRAM_LLM_MODEL", "gpt-4o-mini"),
                       "messages": messages}).encode("utf-8")
    request = urllib.request.Request(base_url.rstrip("/") + "/chat/completions", data=body,
                                     headers={"Content-Type": "application/json"})
    key = os.environ.get("ENGRAM_LLM_API_KEY")
    if key:
        request.add_header("Authorization", "Bearer " + key)
    with urllib.request.urlopen(request, timeout=120) as response:
        reply = json.load(response)
    return reply["choices"][0]["message"]["content"]


def recall(engine, scope, message):
    """The packed context and answer instructions for `message` ("" before the first turn)."""
    try:
        result = engine.recall(scope, message)
    except engram.NotFound:  # nothing stored for this user yet
        return "", ""
    return result.context, result.answer_instructions


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", default="agent.db", help="engram store file")
    parser.add_argument("--user", default="me", help="whose memory (scope user:<name>)")
    parser.add_argument("--config", type=pathlib.Path, help="engram TOML configuration")
    parser.add_argument("--data-dir", help="engram's data directory (models, lexicons)")
    args = parser.parse_args()

    base_url = os.environ.get("ENGRAM_LLM_BASE_URL")
    scope = f"user:{args.user}"
    history = []
    interactive = sys.stdin.isatty()
    with engram.Engine(args.store, config=args.config, data_dir=args.data_dir) as engine:
        while True:
            if interactive:
                print("> ", end="", flush=True)
            line = sys.stdin.readline()
            if not line:
                break
            message = line.strip()
            if not message:
                continue
            context, instructions = recall(engine, scope, message)
            if base_url:
                answer = ask_model(base_url, context, instructions, message, history)
            elif context:
                answer = "(no language model configured; the context I would answer from)\n" + context
            else:
                answer = "(no language model configured, and nothing relevant remembered)"
            print(answer.rstrip("\n"), flush=True)
            turns = [{"text": message, "role": "user", "speaker": args.user}]
            if base_url:  # without a model the "answer" is only the recalled context
                turns.append({"text": answer, "role": "assistant", "speaker": "agent"})
            engine.remember(scope, turns)
            history += [{"role": "user", "content": message},
                        {"role": "assistant", "content": answer}]


if __name__ == "__main__":
    main()
