#include "blob_store.hpp"

#include <algorithm>
#include <optional>

#include "background_sha256.hpp"
#include "sha256.hpp"

namespace strata::hub::detail {
namespace {

// Saving and releasing one blob exclude each other (PostgreSQL; SQLite's writers are already
// serialised), so a blob is never deleted under a model that is being saved with it.
void lock_blob(Database& db, const std::string& sha256) {
  db.lock_for_transaction(static_cast<int64_t>(std::stoull(sha256.substr(0, 15), nullptr, 16)));
}

BlobId hash_weights(const io::NamedTensors& weights) {
  Sha256 sha;
  BlobId id;
  io::write_safetensors(weights, {}, [&](const char* p, size_t n) {
    sha.update(p, n);
    id.size += static_cast<int64_t>(n);
  });
  id.sha256 = sha.hex();
  return id;
}

// Rows of chunk_bytes in blob_chunks: PostgreSQL and in-memory SQLite hubs.
void put_rows(HubState& s, const BlobId& id, const io::NamedTensors& weights) {
  Database& db = *s.db;
  const size_t chunk_bytes = s.options.chunk_bytes;
  const int64_t chunks = (id.size + static_cast<int64_t>(chunk_bytes) - 1) / static_cast<int64_t>(chunk_bytes);
  // Another transaction may have committed the same weights: then there is nothing to write.
  bool fresh = false;
  db.query("INSERT INTO blobs (sha256, size, chunk_count, created_at) VALUES (?, ?, ?, ?) "
           "ON CONFLICT (sha256) DO NOTHING RETURNING sha256",
           {id.sha256, id.size, chunks, unix_now()}, [&](const Row&) { fresh = true; });
  if (!fresh) return;

  int64_t index = 0;
  const auto write_chunk = [&](std::string_view bytes) {
    db.execute("INSERT INTO blob_chunks (sha256, idx, data) VALUES (?, ?, ?)", {id.sha256, index, Bytes{bytes}});
    if (s.options.on_chunk_written) s.options.on_chunk_written(index);
    ++index;
  };
  std::string buffer;
  buffer.reserve(std::min<int64_t>(id.size, static_cast<int64_t>(chunk_bytes)));
  int64_t written = 0;
  io::write_safetensors(weights, {}, [&](const char* p, size_t n) {
    written += static_cast<int64_t>(n);
    while (n > 0) {
      if (buffer.empty() && n >= chunk_bytes) {  // whole chunks straight from the tensor's memory
        write_chunk(std::string_view(p, chunk_bytes));
        p += chunk_bytes;
        n -= chunk_bytes;
        continue;
      }
      const size_t take = std::min(n, chunk_bytes - buffer.size());
      buffer.append(p, take);
      p += take;
      n -= take;
      if (buffer.size() == chunk_bytes) {
        write_chunk(buffer);
        buffer.clear();
      }
    }
  });
  if (!buffer.empty()) write_chunk(buffer);
  STRATA_CHECK(written == id.size && index == chunks, "hub: the weights changed while being saved (",
               std::to_string(written), " bytes, expected ", std::to_string(id.size), ")");
}

io::NamedTensors read_rows(Database& db, const BlobId& id, const std::string& what) {
  const auto corrupt = [&](const std::string& why) {
    return Error("hub: " + what + ": the blob " + id.sha256 + " is corrupted: " + why);
  };
  BackgroundSha256 sha;
  io::SafetensorsDecoder decoder(what, static_cast<uint64_t>(id.size));
  int64_t expected = 0, bytes = 0;
  db.query("SELECT idx, data FROM blob_chunks WHERE sha256 = ? ORDER BY idx", {id.sha256}, [&](const Row& r) {
    if (r.integer(0) != expected) throw corrupt("chunk " + std::to_string(expected) + " is missing");
    ++expected;
    const std::string_view data = r.bytes(1);
    sha.update(data);
    bytes += static_cast<int64_t>(data.size());
    if (bytes > id.size) throw corrupt("it holds more than the recorded " + std::to_string(id.size) + " bytes");
    try {
      decoder.feed(data.data(), data.size());
    } catch (const Error& e) {
      throw corrupt(e.what());
    }
  });
  if (expected == 0) throw Error("hub: " + what + ": its blob " + id.sha256 + " is gone (deleted while loading?)");
  if (bytes != id.size)
    throw corrupt("it holds " + std::to_string(bytes) + " bytes, " + std::to_string(id.size) + " recorded");
  if (sha.hex() != id.sha256) throw corrupt("the SHA-256 of the stored bytes does not match");
  try {
    return decoder.finish().tensors;
  } catch (const Error& e) {
    throw corrupt(e.what());
  }
}

}  // namespace

void stage_blob(const HubState& s, StagedBlob& blob, const io::NamedTensors& weights) {
  if (const BlobFiles* files = s.files()) {
    blob.file = files->stage(weights, static_cast<int64_t>(s.options.chunk_bytes), s.options.on_chunk_written);
    blob.id = blob.file->id;
  } else {
    blob.id = hash_weights(weights);
  }
  blob.staged = true;
}

void put_blob(HubState& s, StagedBlob& blob, const io::NamedTensors& weights) {
  if (!blob.staged) stage_blob(s, blob, weights);
  lock_blob(*s.db, blob.id.sha256);
  if (!blob.file) return put_rows(s, blob.id, weights);
  StagedBlobFile& f = *blob.file;
  f.recorded = false;  // this may be a retry of a transaction that recorded it and rolled back
  s.db->query("INSERT INTO blobs (sha256, size, chunk_count, created_at, file, block_bytes, block_sha256) "
              "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (sha256) DO NOTHING RETURNING sha256",
              {f.id.sha256, f.id.size, f.block_count(), unix_now(), f.name(),
               f.block_bytes, f.block_sha256},
              [&](const Row&) { f.recorded = true; });
  // Should the transaction fail, the file is removed only if no committed row names it; when that
  // cannot be asked (the disk still failing), it stays, and the next Hub::open's sweep removes it
  // if it is an orphan.
  Database& db = *s.db;
  db.on_failure([&db, &f] {
    try {
      bool named = false;
      db.query("SELECT 1 FROM blobs WHERE file = ?", {f.name()}, [&](const Row&) { named = true; });
      f.recorded = named;
    } catch (...) {
      f.recorded = true;
    }
  });
}

io::NamedTensors read_blob(HubState& s, const BlobId& id, const std::string& what) {
  std::optional<BlobFileRef> file;
  s.db->query("SELECT file, block_bytes, block_sha256 FROM blobs WHERE sha256 = ?", {id.sha256}, [&](const Row& r) {
    if (!r.is_null(0)) file = BlobFileRef{r.text(0), r.integer(1), r.text(2)};
  });
  if (!file) return read_rows(*s.db, id, what);
  const BlobFiles* files = s.files();
  STRATA_CHECK(files != nullptr, "hub: ", what, ": its blob is a file, and this hub (", s.url, ") has no blob folder");
  return files->read(*file, id, what);
}

bool release_blob(HubState& s, const std::string& sha256, std::vector<std::string>& files) {
  Database& db = *s.db;
  lock_blob(db, sha256);
  if (db.query_int("SELECT 1 FROM models WHERE blob_sha256 = ? LIMIT 1", {sha256}) ||
      db.query_int("SELECT 1 FROM datasets WHERE blob_sha256 = ? LIMIT 1", {sha256}))
    return false;
  db.query("SELECT file FROM blobs WHERE sha256 = ? AND file IS NOT NULL", {sha256}, [&](const Row& r) {
    BlobFiles::check_name(r.text(0), sha256);  // refused inside the transaction: nothing is deleted
    files.push_back(r.text(0));
  });
  db.execute("DELETE FROM blob_chunks WHERE sha256 = ?", {sha256});
  db.execute("DELETE FROM blobs WHERE sha256 = ?", {sha256});
  return true;
}

}  // namespace strata::hub::detail
