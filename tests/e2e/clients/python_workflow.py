"""An agent's workflow through the official Python SDK (mcp on PyPI), as tests/e2e/mcp-clients.test.ts runs it.

usage: python_workflow.py ZIPFS_BINARY ZIPFS_HOME SMALL_ZIP LARGE_ZIP
Prints one JSON object with what it saw; the bun test asserts on it.
"""
import json
import os
import sys
import time

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

binary, home, small_zip, large_zip = sys.argv[1:5]


def server_pid() -> int:
    """The zipfs mcp process this script started (its child), found through /proc."""
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open(f'/proc/{entry}/stat') as f:
                fields = f.read().rsplit(')', 1)[1].split()
            with open(f'/proc/{entry}/cmdline', 'rb') as f:
                cmdline = f.read().split(b'\0')
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and cmdline[:2] == [binary.encode(), b'mcp']:
            return int(entry)
    raise RuntimeError('zipfs mcp process not found')


def cpu_seconds(pid: int) -> float:
    with open(f'/proc/{pid}/stat') as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


async def main() -> None:
    seen: dict = {}
    # the server's root (issue 33): the folder holding the data folder and the zips
    env = {'ZIPFS_HOME': home, 'ZIPFS_GREP_TIME_BUDGET_MS': '30000', 'ZIPFS_ROOTS': os.path.dirname(home)}
    async with stdio_client(StdioServerParameters(command=binary, args=['mcp'], env=env)) as streams:
        async with ClientSession(streams[0], streams[1]) as session:
            seen['protocol'] = (await session.initialize()).protocol_version
            seen['tools'] = len((await session.list_tools()).tools)
            pid = server_pid()

            progress: list = []

            async def on_progress(done, total, message):
                progress.append([done, total])

            opened = await session.call_tool('zipfs_open', {'path': small_zip}, progress_callback=on_progress)
            seen['opened'] = opened.structured_content

            # Ten writes at once, as agents issue parallel tool calls: all must go through.
            results: list = [None] * 10

            async def write(i: int) -> None:
                results[i] = await session.call_tool('zipfs_write', {'path': f'parallel/{i}.txt', 'content': f'file {i}'})

            async with anyio.create_task_group() as group:
                for i in range(10):
                    group.start_soon(write, i)
            seen['parallel_errors'] = [r.content[0].text for r in results if r.is_error]
            seen['status_added'] = (await session.call_tool('zipfs_status', {})).structured_content['added']

            # A grep that would backtrack for its whole 30 s budget, cancelled after 0.5 s.
            await session.call_tool('zipfs_write', {'path': 'slow.txt', 'content': ('a' * 28 + 'b\n') * 400})
            with anyio.move_on_after(0.5):
                await session.call_tool('zipfs_grep', {'pattern': '(a+)+$', 'path': 'slow.txt'})
            await anyio.sleep(0.3)
            before = cpu_seconds(pid)
            await anyio.sleep(1.0)
            seen['cpu_after_cancelled_grep'] = cpu_seconds(pid) - before

            # An open of a large archive, cancelled while it extracts: no session, no staging left.
            with anyio.move_on_after(0.3):
                await session.call_tool('zipfs_open', {'path': large_zip, 'name': 'large'})
            await anyio.sleep(1.0)
            seen['sessions_after_cancelled_open'] = [s['name'] for s in (await session.call_tool('zipfs_sessions', {})).structured_content['sessions']]
            seen['workspaces_after_cancelled_open'] = sorted(os.listdir(os.path.join(home, 'workspaces')))

            synced = await session.call_tool('zipfs_sync', {}, progress_callback=on_progress)
            seen['synced'] = synced.structured_content
            seen['progress'] = progress
            error = await session.call_tool('zipfs_read', {'path': 'missing.txt'})
            seen['error'] = {'is_error': error.is_error, 'structured': error.structured_content, 'text': json.loads(error.content[0].text)}
            seen['closed'] = (await session.call_tool('zipfs_close', {})).structured_content
    print(json.dumps(seen))


anyio.run(main)
