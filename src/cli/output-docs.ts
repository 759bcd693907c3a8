/**
 * What each field of each command's result holds, in sentences: shown by
 * `zipfs help CMD` (the README's JSON reference lists the fields and their
 * types, and sends readers there). The output
 * schemas carry terse descriptions because every MCP tools/list pays for
 * them; these longer ones cost MCP nothing. tests/output-docs.test.ts checks
 * that every schema field has one here and that nothing here names a field the
 * schema lacks, so the two cannot drift apart.
 */
export const OUTPUT_DOCS: Record<string, Record<string, string>> = {
  open: {
    session_id: "The session's id (a UUID); a unique prefix of 8 or more characters names it too.",
    name: "The session's name: the name given, else the zip's base name (with -2, -3, ... when taken).",
    workspace_path: 'Absolute path of the folder holding the extracted files.',
    file_count: 'Files in the session.',
    extracted_size_bytes: 'Bytes the files take, as extracted.',
    not_extracted:
      'A lazy session: files still only in the zip, not in the folder (zipfs extract puts them there); counted as ' +
      'file_count counts them, folders in neither.',
    already_open: 'Present (true) when the zip already had a session and that one is answered, not a new one.',
    zip_changed:
      "Present (true) when that session's zip changed on disk since its base: the counts are the base's; status " +
      'lists the changes, sync with merge keeps both sides.',
    warnings:
      'What inspect would warn of (links extracted as plain files), and a session taken over from a job that is gone.',
    held_by:
      'Over MCP: the zip has a session another live client works in (another connection to this server, or ' +
      "another process), so this answer is a session of the caller's own; its session, holder and since (ISO time). " +
      'Name that session in calls to work in it instead.',
    'held_by.session': "That client's session of this zip.",
    'held_by.holder': 'Another MCP connection (its client name) or a process (its pid).',
    'held_by.since': 'When that connection began, or when that session was opened (ISO time).',
    other_sessions:
      'Names of the other open sessions: calls that name none go to the one this MCP connection opened or named ' +
      'last, or on the CLI need a name when several are open.',
  },
  inspect: {
    entries: "This page of the archive's entries, in central-directory order.",
    'entries[].name': "The entry's name as stored in the archive.",
    'entries[].type': 'file, dir or symlink.',
    'entries[].size': 'Uncompressed size in bytes.',
    'entries[].compressed_size': 'Compressed size in bytes.',
    'entries[].method': 'Compression method: stored, deflate, or the name of another.',
    'entries[].modified_at': 'Modification time, ISO 8601.',
    'entries[].encrypted': 'Set when encrypted (zipcrypto, aes-128/192/256): without a password it stays in the zip.',
    total_entries: 'Entries in the whole archive.',
    total_size: 'Uncompressed bytes of all entries.',
    total_compressed: 'Compressed bytes of all entries.',
    comment: "The archive's comment, when it has one.",
    warnings: 'Why open would refuse or change something; empty when it would open cleanly.',
    suggestion:
      'Past 10,000 entries or 1 GiB uncompressed: to open it lazily, and what works on entries left in the zip.',
    next_offset: 'The offset of the next page; absent on the last page.',
  },
  sessions: {
    sessions: 'Every open session, by name.',
    'sessions[].id': "The session's id.",
    'sessions[].name': "The session's name.",
    'sessions[].source_path': 'Absolute path of its zip.',
    'sessions[].state': 'Always "open".',
    'sessions[].created_at': 'When it was opened, ISO 8601.',
    'sessions[].last_accessed_at': 'When it was last used, ISO 8601 (prune --stale measures from it).',
    'sessions[].file_count': 'Files in the session.',
    'sessions[].extracted_size_bytes': 'Bytes the files take, as extracted.',
  },
  path: {
    path: "Absolute path of the session's workspace folder.",
    not_extracted:
      'A lazy session: files (not folders) only in the zip, which other tools do not see in the folder until ' +
      'zipfs extract.',
  },
  extract: {
    extracted: 'Entries written into the folder by this call.',
    bytes: 'Bytes written.',
    not_extracted: 'Files (not folders, as open counts them) still only in the zip afterwards.',
    note:
      'Present when nothing was extracted: why (not lazy, or already in the folder), and the call that takes the ' +
      "zip's version.",
  },
  ls: {
    entries: "The folder's entries (this page): folders first, then files, each by name.",
    'entries[].name': "Name; a folder's ends in /.",
    'entries[].type': 'file, dir or symlink.',
    'entries[].size_bytes': 'Size in bytes (0 for a folder).',
    'entries[].modified_at': 'Modification time, ISO 8601.',
    'entries[].encrypted': 'Set when encrypted (zipcrypto, aes-128/192/256): without a password it stays in the zip.',
    total: 'All entries, when the answer is paged.',
    next_offset: 'The offset of the next page; absent on the last page.',
  },
  tree: {
    tree: "The tree drawn as text, this page's lines.",
    file_count: 'Files in the whole tree.',
    dir_count: 'Folders in the whole tree.',
    total: 'All lines of the drawing, when the answer is paged.',
    next_offset: 'The offset of the next page; absent on the last page.',
  },
  read: {
    content: 'The bytes or lines read, as text in the encoding below (base64 for binary).',
    size_bytes: "The whole file's size in bytes.",
    encoding: 'The encoding content is in.',
    offset: 'Byte offset the content starts at.',
    bytes_read: 'Bytes of the file this content holds.',
    remaining_bytes: 'Bytes of the file after this content.',
    sha256: 'SHA-256 of the whole file: pass it to edit as expected_sha256.',
    total_lines: 'Lines in the file (a read by lines).',
    start_line: 'First line given, 1-based (a read by lines).',
    end_line: 'Last line given (a read by lines).',
    next_offset: 'The offset that continues; absent at the end.',
    next_start_line: 'The start_line that continues a read by lines; absent at the end.',
  },
  write: {
    written: 'Always true.',
    size_bytes: "The file's size afterwards.",
  },
  edit: {
    sha256: 'SHA-256 of the new content (one file, named by path alone).',
    size_bytes: "The file's size afterwards (one file, named by path alone).",
    replacements: 'Matches replaced, over all edits and all files.',
    diff: 'Unified diff of the change (of every file changed, one after another); empty with diff: false.',
    truncated: 'Present (true) when the diff was cut to fit the answer (MCP only): zipfs_diff pages through it.',
    total: 'Lines of the whole diff, when it was cut.',
    results: 'With paths or a glob: each file changed, skipped or failed (files no edit matched are only counted).',
    'results[].path': "The file's path, normalised.",
    'results[].replacements': 'Matches replaced in it.',
    'results[].skipped': 'Why a file a glob named was left alone (not text).',
    'results[].failure': 'Why it was not written, though every file was checked first (a file held open).',
    count: 'With paths or a glob: files changed.',
    unchanged_count: 'With paths or a glob: files named where no edit matched, left as they were.',
    results_total: 'All results, when the list was cut to fit the answer (MCP only).',
  },
  mkdir: {
    created: 'True when the folder was made; false when it was already there.',
    path: "The folder's path, normalised.",
  },
  move: {
    moved: 'True when every path was moved.',
    from: 'The old path, normalised (from alone).',
    to: 'The new path, normalised (from alone).',
    results: 'With paths or a glob: one result per path, in the order named.',
    'results[].path': 'The path, normalised.',
    'results[].to': 'Where it went, normalised.',
    'results[].failure': 'Why it was not moved, though every path was checked first (a file held open).',
    count: 'With paths or a glob: paths moved.',
    truncated: 'Present (true) when results was cut to fit the answer (MCP only); count has them all.',
  },
  delete: {
    deleted: 'True when every path was deleted.',
    path: 'The deleted path, normalised (path alone).',
    results: 'With paths or a glob: one result per path, in the order named.',
    'results[].path': 'The path, normalised.',
    'results[].failure': 'Why it was not deleted, though every path was checked first (a file held open).',
    count: 'With paths or a glob: paths deleted.',
    truncated: 'Present (true) when results was cut to fit the answer (MCP only); count has them all.',
  },
  grep: {
    matches: 'Matches, by file path, line and column (this page); each match on a line is an item of its own.',
    'matches[].file': "The file's workspace path.",
    'matches[].line_number': "The line's number, 1-based; 0 with names_only.",
    'matches[].column': "The match's column on its line, 1-based, in UTF-16 units.",
    'matches[].line_content': 'The line (a long one shortened around the match).',
    'matches[].context_before': 'Lines before it, with context_lines.',
    'matches[].context_after': 'Lines after it, with context_lines.',
    'matches[].byte_offset': 'In a binary file: the byte offset of the first match.',
    total_matches: 'Matches found: exact with count_all, else at least this many when truncated.',
    truncated: 'True when there are more matches than shown.',
    files_searched: 'Files searched.',
    skipped_binary: 'Binary files skipped (binary: true searches them).',
    note: 'Why the search stopped early or searched nothing, and what to do.',
    next_offset: 'The offset of the next page; absent on the last page.',
    next_cursor:
      'Where the search stopped (time budget, max_results or answer size): pass it as cursor to go on from there, ' +
      'nothing skipped or repeated; absent when it searched everything.',
    files: 'With output files (grep -l) or count (grep -c): the files with a match, in path order (this page).',
    'files[].file': "The file's workspace path.",
    'files[].count': 'With output count: its matches.',
  },
  status: {
    modified: "Paths whose content changed (a folder's ends in /).",
    added: 'Paths not in the zip.',
    deleted: 'Paths of the zip no longer in the workspace.',
    renamed: 'Files moved (found by content); these are not in added or deleted.',
    'renamed[].from': 'The path in the zip.',
    'renamed[].to': 'The path in the workspace.',
    'renamed[].modified': 'True when the content changed too.',
    unchanged_count: 'Entries unchanged.',
    unsupported: 'Changed paths that sync would refuse (on this page).',
    'unsupported[].path': 'The path.',
    'unsupported[].reason': 'Why, and how to fix it.',
    total: 'All changed paths, when the answer is paged.',
    zip_changed:
      'Changes another writer made to the zip since this session\'s base, by path (as open places entries), as "A ' +
      'path", "M path", "D path": sync --merge takes them in.',
    leftovers:
      'What syncs killed outright left beside the zip (their lock, their temporaries), each with its path and ' +
      'process; the next sync, close or prune removes them. Absent when there is none.',
    next_offset: 'The offset of the next page; absent on the last page.',
  },
  diff: {
    files: 'Changed files, by path (this page).',
    'files[].path': "The workspace path (a folder's ends in /).",
    'files[].status': 'modified, added, deleted or renamed.',
    'files[].from': 'The path in the zip, when renamed.',
    'files[].binary': 'True when the file has no text diff.',
    'files[].additions': 'Lines added.',
    'files[].deletions': 'Lines removed.',
    'files[].difference': 'What differs when no line does (line endings, a BOM, the encoding).',
    diff: 'The unified diff of this page.',
    truncated: 'True when more follows this page.',
    total: 'All files and diff lines, when the answer is paged.',
    next_offset: 'The offset of the next page; absent on the last page.',
  },
  sync: {
    synced:
      "True when the sync is done (a merge with nothing of the workspace's own leaves the zip as it was); false " +
      'for a dry run.',
    backup_path:
      'Where the previous zip was kept (ZIP.bak, always the newest backup); null when nothing was written or with ' +
      'no backup.',
    older_backup_path:
      'Where the backup ZIP.bak held before this sync went, the next number (ZIP.1.bak, ZIP.2.bak, ...: higher is ' +
      'newer), so no sync overwrites a backup; absent when there was none. Past ZIPFS_KEEP_BACKUPS (default 5) ' +
      'numbered ones, the oldest are removed.',
    files_modified: 'Entries whose content changed.',
    files_added: 'Entries added.',
    files_deleted: 'Entries removed.',
    files_renamed: 'Entries renamed, kept in their place in the zip.',
    from_zip:
      'With merge: the other writer\'s changes taken in, as status listed them ("A path", "M path", "D path"); a ' +
      'change both sides made is counted here only.',
    from_workspace:
      'A dry run with merge: the workspace\'s own changes it would write ("A path", "M path", "D path", "R from -> ' +
      'to"), without those the zip made too; at most 500 lines, the counts say how many in all.',
    merged_by_lines:
      'With merge: text files both sides changed, in different lines, merged as git merge-file does; the merged ' +
      'text is in the workspace and the zip. Absent when there was none.',
    leftovers_removed:
      'What syncs killed outright left beside the zip (their lock, their temporaries), removed by this sync; absent ' +
      'when there was none.',
    method_changed:
      'Changed entries whose compression method zipfs cannot write (bzip2, Deflate64, LZMA, xz, ...), written as ' +
      'deflate instead, one line each ("a.txt: bzip2 -> deflate"); a dry run lists those it would. Stored, deflate ' +
      'and zstd entries keep their method, and unchanged entries are copied as they were. Absent when there is none.',
    bytes_sent:
      'A zip on a server (http(s), WebDAV, s3): the bytes uploaded (on S3, unchanged runs are copied there instead); ' +
      'absent for a local zip. backup_path is then the URL of the backup object (URL.bak).',
  },
  close: {
    closed: 'Always true.',
    synced: 'True when the changes were synced first.',
    name: "The closed session's name.",
    sync: 'With sync: what sync answered.',
    'sync.backup_path':
      'Where the previous zip was kept (ZIP.bak; older backups are numbered, as sync answers); null when nothing was ' +
      'written or with no backup.',
    'sync.files_modified': 'Entries whose content changed.',
    'sync.files_added': 'Entries added.',
    'sync.files_deleted': 'Entries removed.',
    'sync.files_renamed': 'Entries moved, their bytes kept in place; present only when there were renames.',
    'sync.method_changed':
      'Changed entries whose compression method zipfs cannot write, written as deflate ("a.txt: bzip2 -> deflate"), ' +
      'as sync answers it; absent when there is none.',
  },
  restore: {
    from: 'The side the files were put back from: zip (the archive on disk now) or base (as at open or the last sync).',
    restored: 'The first 200 paths restored, each with what was done; the counts below cover all of them.',
    'restored[].path': 'The workspace path.',
    'restored[].action':
      'written (the file now holds that side), deleted (that side lacks the path, as git restore --source), or ' +
      'unchanged (it already did).',
    written: 'Files written from that side.',
    deleted: 'Paths deleted because that side lacks them.',
    unchanged: 'Paths that already held that side.',
    skipped: 'Paths or patterns left as they were, each with why (only the workspace has it: delete it to drop it).',
    'skipped[].path': 'The path or pattern as given.',
    'skipped[].reason': 'Why it was left.',
  },
  prune: {
    pruned: 'What was removed (or, with dry_run, would be).',
    'pruned[].id': "The session's id; empty for a leftover of an interrupted open or close.",
    'pruned[].name':
      "The session's (or leftover folder's) name; for a killed sync's lock or temporary, its path beside the zip.",
    'pruned[].reason':
      'Why: all, stale (its idle time), orphaned (its owner process is gone), or the kind of leftover; with ' +
      'discard_changes, the unsynced changes it lost.',
    skipped: 'Sessions kept although asked for.',
    'skipped[].name': "The session's name.",
    'skipped[].reason':
      'Why: busy (a live process works in it), owned by a running job, kept for its unsynced changes, or damaged; ' +
      'and how to remove it anyway.',
    freed_bytes: 'Bytes removed (or that would be).',
    dry_run: 'True for a dry run: nothing was removed, and the lists say what would be.',
  },
};
