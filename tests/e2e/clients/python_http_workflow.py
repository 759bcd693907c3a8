"""An agent's workflow over Streamable HTTP with the official Python SDK, as tests/e2e/mcp-http.test.ts runs it.

usage: python_http_workflow.py URL ZIP
Prints one JSON object with what it saw.
"""
import json
import sys

import anyio
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

url, zip_path = sys.argv[1:3]


async def main() -> None:
    seen: dict = {'progress': []}

    async def on_progress(done, total, message):
        seen['progress'].append([done, total])

    async with streamable_http_client(url) as streams:
        async with ClientSession(streams[0], streams[1]) as session:
            seen['protocol'] = (await session.initialize()).protocol_version
            seen['opened'] = (await session.call_tool('zipfs_open', {'path': zip_path}, progress_callback=on_progress)).structured_content
            seen['written'] = (await session.call_tool('zipfs_write', {'path': 'from-python.txt', 'content': 'over http'})).structured_content
            seen['status'] = (await session.call_tool('zipfs_status', {})).structured_content
            seen['synced'] = (await session.call_tool('zipfs_sync', {}, progress_callback=on_progress)).structured_content
    print(json.dumps(seen))


anyio.run(main)
