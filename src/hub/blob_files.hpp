// Weight blobs of a SQLite hub kept as files in a folder beside the database ("strata.db" ->
// "strata.db-blobs/"). Inside SQLite a blob is written three times (the WAL, the checkpoint
// into the database, its fsync); a file is written once and synced, like a durable copy.
//
// Crash safety comes from the order: a file is written, synced and named before the row that
// refers to it commits, and removed only after the row's deletion commits. A file no row
// refers to (a save killed midway, a rolled-back transaction) is an orphan; `sweep` removes
// orphans, skipping files whose writer still holds their lock (flock, released when the
// writer's process dies). A sweep removes a file only while holding its lock, and a writer
// keeps a new file only if it is still linked once the writer holds the lock (else it starts
// over under a new name): so no sweep can remove a file that a live save may still commit,
// however the two interleave. Loads are checked block by block against SHA-256 digests
// recorded at save time, so the check runs on several cores.
//
// Names read from the database are checked (check_name) before they become paths: a
// tampered row cannot make the hub read or delete a file outside the folder.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "blob_id.hpp"
#include "database.hpp"
#include "strata/io/safetensors.hpp"

namespace strata::hub::detail {

inline constexpr size_t kDigestHex = 64;  // a SHA-256 in hex

// One blob file written for a save. While this object lives the file is locked, so `sweep`
// leaves it alone; when it dies the file is removed unless the save's row refers to it.
class StagedBlobFile {
 public:
  // A new, empty file in `folder` under a random name, locked and still linked.
  static std::unique_ptr<StagedBlobFile> create(const std::string& folder);
  ~StagedBlobFile();
  StagedBlobFile(const StagedBlobFile&) = delete;
  StagedBlobFile& operator=(const StagedBlobFile&) = delete;

  const std::string& path() const { return path_; }
  int fd() const { return fd_; }
  std::string name() const;  // inside the folder: what the blobs row records

  BlobId id;
  int64_t block_bytes = 0;
  std::string block_sha256;  // the hex digest of each block, concatenated
  int64_t block_count() const { return static_cast<int64_t>(block_sha256.size() / kDigestHex); }
  bool recorded = false;     // set by put_blob when its transaction's row names this file

 private:
  StagedBlobFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  std::string path_;
  int fd_;
};

// What a blobs row says about a blob kept as a file.
struct BlobFileRef {
  std::string name;
  int64_t block_bytes = 0;
  std::string block_sha256;
};

class BlobFiles {
 public:
  explicit BlobFiles(std::string folder) : folder_(std::move(folder)) {}
  // The folder for a SQLite database path; empty for in-memory and URI databases, which keep
  // their blobs in rows.
  static std::string folder_for(const std::string& sqlite_path);

  // Writes the safetensors form of `weights` into a new file, hashes it (the whole file, and
  // each block of `block_bytes`) and syncs it. `on_block` (may be empty) runs after each block
  // is written.
  std::unique_ptr<StagedBlobFile> stage(const io::NamedTensors& weights, int64_t block_bytes,
                                        const std::function<void(int64_t)>& on_block) const;
  // Reads, checks and decodes the blob; `what` ("model \"m\" version 3") prefixes every error.
  io::NamedTensors read(const BlobFileRef& file, const BlobId& id, const std::string& what) const;
  // After a transaction that deleted the row committed; `name` passed check_name. A missing
  // file is not an error.
  void remove(const std::string& name) const noexcept;
  // Throws strata::Error unless `name` (a blobs.file of blob `sha256`) is a name the hub
  // writes: 32 hex digits and ".safetensors", nothing that leads out of the folder.
  static void check_name(const std::string& name, const std::string& sha256);
  // Removes files that no blobs row refers to and no live writer holds.
  void sweep(Database& db) const;

 private:
  std::string folder_;
};

}  // namespace strata::hub::detail
