// Weight blobs: a model's safetensors bytes, addressed by their SHA-256, stored as rows of
// chunk_bytes so that a model of several GB streams in and out of the database.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "database.hpp"
#include "strata/io/safetensors.hpp"

namespace strata::hub::detail {

struct BlobId {
  std::string sha256;
  int64_t size = 0;
};

// Hashes the safetensors form of `weights` without building it in memory.
BlobId hash_weights(const io::NamedTensors& weights);

// Inside a write transaction: stores the blob unless one with its hash is already there.
// `on_chunk` (may be empty) is called after each chunk row is written.
void put_blob(Database& db, const BlobId& id, const io::NamedTensors& weights, size_t chunk_bytes,
              const std::function<void(int64_t)>& on_chunk);

// Streams the blob back, decoding tensors as chunks arrive and checking the SHA-256;
// `what` ("model \"m\" version 3") prefixes every error.
io::NamedTensors read_blob(Database& db, const BlobId& id, const std::string& what);

// Inside a write transaction: deletes the blob if no model or dataset refers to it. True if deleted.
bool release_blob(Database& db, const std::string& sha256);

}  // namespace strata::hub::detail
