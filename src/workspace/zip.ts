// A minimal ZIP writer (APPNOTE.TXT 6.3.x: local headers, deflate method 8, central directory, end record) on
// node:zlib, so `obflow workspace --zip` needs no archive dependency. No ZIP64: a workspace is a few MB. Entry times
// are a fixed 1980-01-01 (the format's epoch), so the same files give the same bytes.

import { crc32, deflateRawSync } from 'node:zlib';

export interface ZipEntry {
  /** Forward slashes, relative (`collections/x.json`). */
  path: string;
  contents: Uint8Array;
  /** Unix mode bits kept in the external attributes (0o600 for secrets, 0o755 for run.sh). */
  mode: number;
}

const DOS_DATE_1980_01_01 = (0 << 9) | (1 << 5) | 1;

export function zip(entries: readonly ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    if (entry.path.startsWith('/') || entry.path.includes('\\') || entry.path.split('/').includes('..'))
      throw new TypeError(`not a relative zip path: ${entry.path}`);
    const name = Buffer.from(entry.path, 'utf8');
    const data = deflateRawSync(entry.contents, { level: 9 });
    const crc = crc32(entry.contents);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0); // local file header signature (§4.3.7)
    local.writeUInt16LE(20, 4); // version needed: 2.0 (deflate)
    local.writeUInt16LE(0x0800, 6); // bit 11: names are UTF-8
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(DOS_DATE_1980_01_01, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(entry.contents.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0); // central directory header (§4.3.12)
    central.writeUInt16LE((3 << 8) | 20, 4); // made by: Unix, 2.0 (so the mode bits are read)
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(DOS_DATE_1980_01_01, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(entry.contents.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt16LE(0, 30);
    central.writeUInt16LE(0, 32);
    central.writeUInt16LE(0, 34);
    central.writeUInt16LE(0, 36);
    central.writeUInt32LE(((0o100000 | entry.mode) << 16) >>> 0, 38); // regular file + mode in the high half
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0); // end of central directory (§4.3.16)
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
