// Weight blobs: a model's or dataset's safetensors bytes, addressed by their SHA-256. A SQLite
// hub on disk keeps them as files beside the database (blob_files.hpp); PostgreSQL and
// in-memory hubs keep them as rows of chunk_bytes, so that a model of several GB streams in and
// out of the database.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "blob_files.hpp"
#include "blob_id.hpp"
#include "hub_state.hpp"
#include "strata/io/safetensors.hpp"

namespace strata::hub::detail {

// The blob one save writes. Prepared models and datasets hold it by shared_ptr, so that
// put_blob can stage it inside the transaction when nobody did before.
struct StagedBlob {
  BlobId id;
  std::unique_ptr<StagedBlobFile> file;  // when the hub keeps blob files
  bool staged = false;
};

// With no lock held: hashes the safetensors form of `weights` or, for a hub with blob files,
// writes, hashes and syncs its file. Reads s.options' chunk_bytes and on_chunk_written only.
void stage_blob(const HubState& s, StagedBlob& blob, const io::NamedTensors& weights);

// Inside a write transaction: records the blob unless one with its hash is already there
// (staging it first if stage_blob was not called).
void put_blob(HubState& s, StagedBlob& blob, const io::NamedTensors& weights);

// Decodes the blob, checking its SHA-256; `what` ("model \"m\" version 3") prefixes every error.
io::NamedTensors read_blob(HubState& s, const BlobId& id, const std::string& what);

// Inside a write transaction: deletes the blob's rows if no model or dataset refers to it.
// True if deleted; a blob file to remove once the transaction commits goes into `files`.
bool release_blob(HubState& s, const std::string& sha256, std::vector<std::string>& files);

}  // namespace strata::hub::detail
