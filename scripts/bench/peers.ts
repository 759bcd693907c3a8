/** The other tools the benchmark compares with; missing ones are installed from Debian when possible, else skipped. */

const PACKAGES: Record<string, string> = { unzip: 'unzip', zip: 'zip', '7z': 'p7zip-full', bsdtar: 'libarchive-tools' };

export function ensurePeers(install: boolean): { available: Set<string>; notes: string[] } {
  const missing = Object.keys(PACKAGES).filter((tool) => !Bun.which(tool));
  const notes: string[] = [];
  if (missing.length > 0 && install && process.getuid?.() === 0 && Bun.which('apt-get')) {
    const packages = [...new Set(missing.map((tool) => PACKAGES[tool]!))];
    console.error(`bench: installing ${packages.join(', ')} (Debian packages) for the peer rows`);
    Bun.spawnSync(['apt-get', 'install', '-y', '-qq', ...packages], {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      stdout: 'ignore',
      stderr: 'inherit',
    });
  }
  const available = new Set(Object.keys(PACKAGES).filter((tool) => Bun.which(tool)));
  for (const tool of Object.keys(PACKAGES)) {
    if (!available.has(tool))
      notes.push(`${tool} is not installed (apt-get install ${PACKAGES[tool]}): its rows are skipped.`);
  }
  return { available, notes };
}
