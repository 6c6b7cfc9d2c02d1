// Keras / TensorLayer HDF5 weight files through the HDF5 C API. Every handle is owned by an
// H5Handle; the library's own error printing is silenced while we work, and its failures
// become strata::Error naming the file and the object.
#include "strata/io/hdf5.hpp"

#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>

#include "child_process.hpp"
#include "strata/core/checked_size.hpp"
#include "strata/core/error.hpp"
#include "strata/io/atomic_file.hpp"
#include "zip_archive.hpp"

namespace strata::io {
namespace {

// A deflated chunk expands at most ~1032:1; a dataset claiming more than that over its stored
// bytes is lying, and we refuse it before allocating.
constexpr uint64_t kMaxExpansion = 1032;

class H5Handle {
 public:
  H5Handle() = default;
  H5Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  H5Handle(H5Handle&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = -1; }
  H5Handle& operator=(H5Handle&& o) noexcept {
    std::swap(id_, o.id_);
    std::swap(close_, o.close_);
    return *this;
  }
  ~H5Handle() {
    if (id_ >= 0) close_(id_);
  }
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_ = -1;
  herr_t (*close_)(hid_t) = nullptr;
};

// Silences HDF5's printing of its error stack for the scope (restoring the user's handler).
class QuietErrors {
 public:
  QuietErrors() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

class Reader {
 public:
  // Reads `file`; errors name `path` (the file the user gave: a .keras archive's weights are
  // read from a temporary copy).
  Reader(const std::string& file, const std::string& path) : file_(file), path_(path) {}
  // After run(): Keras 2's model.save writes the architecture in the root's "model_config" ("" if none).
  const std::string& model_config() const { return model_config_; }

  std::vector<LayerWeights> run() {
    std::error_code ec;
    STRATA_CHECK(std::filesystem::is_regular_file(file_, ec), path_, ": cannot open the file (no such file)");
    file_size_ = std::filesystem::file_size(file_, ec);
    STRATA_CHECK(H5Fis_hdf5(file_.c_str()) > 0, path_, ": not an HDF5 file (no HDF5 signature)");
    H5Handle file(H5Fopen(file_.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    STRATA_CHECK(file.ok(), path_, ": HDF5 could not open the file (corrupt or truncated?)");
    if (is_keras3(file.get())) return keras3_layers(file.get());
    if (H5Aexists(file.get(), "model_config") > 0) {  // Keras 2's model.save: the architecture as JSON
      const std::vector<std::string> config = read_strings(file.get(), "model_config", "the file");
      STRATA_CHECK(config.size() == 1, path_, ": attribute 'model_config' is not one string");
      model_config_ = config[0];
    }
    H5Handle root = group(file.get(), H5Lexists(file.get(), "model_weights", H5P_DEFAULT) > 0 ? "model_weights" : "/");
    std::vector<LayerWeights> out;
    for (const std::string& layer : strings(root.get(), "layer_names", "the file")) {
      H5Handle g = group(root.get(), layer);
      LayerWeights lw{layer, {}};
      for (const std::string& w : strings(g.get(), "weight_names", "layer '" + layer + "'"))
        lw.weights.emplace_back(w, dataset(g.get(), layer, w));
      out.push_back(std::move(lw));
    }
    return out;
  }

 private:
  H5Handle group(hid_t parent, const std::string& name) {
    STRATA_CHECK(name == "/" || H5Lexists(parent, name.c_str(), H5P_DEFAULT) > 0, path_, ": layer '", name,
                 "' is listed in layer_names but has no group");
    H5Handle g(H5Gopen2(parent, name.c_str(), H5P_DEFAULT), H5Gclose);
    STRATA_CHECK(g.ok(), path_, ": '", name, "' is not an HDF5 group");
    return g;
  }

  // Keras 3's .weights.h5 (its saving_lib's H5IOStore): no layer_names; a "layers" group in
  // which every object that owns variables has a group "vars" of datasets "0", "1", ... in
  // creation order ("layers/dense/vars/0", a recurrent layer's "layers/lstm/cell/vars/0").
  static bool is_keras3(hid_t file) {
    return H5Aexists(file, "layer_names") <= 0 && H5Lexists(file, "model_weights", H5P_DEFAULT) <= 0 &&
           H5Lexists(file, "layers", H5P_DEFAULT) > 0;
  }

  // One LayerWeights per vars group holding datasets, named by the path that owns it
  // ("layers/lstm/cell"), its weights "<path>/vars/<i>" in i's order; groups in name order.
  std::vector<LayerWeights> keras3_layers(hid_t file) {
    std::vector<LayerWeights> out;
    size_t budget = kMaxKeras3Groups;
    keras3_walk(file, "layers", 0, budget, out);
    return out;
  }

  // Hard links only (a soft or external link could point anywhere, another file included);
  // depth and the number of groups visited are bounded, since hard links can make cycles.
  static constexpr int kMaxKeras3Depth = 16;
  static constexpr size_t kMaxKeras3Groups = 100000;

  void keras3_walk(hid_t parent, const std::string& path, int depth, size_t& budget, std::vector<LayerWeights>& out) {
    STRATA_CHECK(depth < kMaxKeras3Depth, path_, ": Keras 3 group '", path, "' nests deeper than ", kMaxKeras3Depth,
                 " levels");
    STRATA_CHECK(budget-- > 0, path_, ": more than ", kMaxKeras3Groups, " Keras 3 groups (a cycle of links?)");
    const std::string leaf = path.substr(path.rfind('/') + 1);
    H5Handle g(H5Gopen2(parent, leaf.c_str(), H5P_DEFAULT), H5Gclose);
    STRATA_CHECK(g.ok(), path_, ": Keras 3 entry '", path, "' is not a group");
    for (const std::string& name : hard_links(g.get(), path)) {
      if (name != "vars") {
        H5O_info_t info;
        STRATA_CHECK(H5Oget_info_by_name2(g.get(), name.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT) >= 0, path_,
                     ": Keras 3 entry '", path, "/", name, "' cannot be read");
        STRATA_CHECK(info.type == H5O_TYPE_GROUP, path_, ": Keras 3 entry '", path, "/", name,
                     "' is not a group (weights belong in a 'vars' group)");
        keras3_walk(g.get(), path + "/" + name, depth + 1, budget, out);
        continue;
      }
      H5Handle vars(H5Gopen2(g.get(), "vars", H5P_DEFAULT), H5Gclose);
      STRATA_CHECK(vars.ok(), path_, ": '", path, "/vars' is not a group");
      const size_t n = hard_links(vars.get(), path + "/vars").size();
      LayerWeights lw{path, {}};
      for (size_t i = 0; i < n; ++i) {
        const std::string index = std::to_string(i);
        STRATA_CHECK(H5Lexists(vars.get(), index.c_str(), H5P_DEFAULT) > 0, path_, ": '", path, "/vars' holds ", n,
                     " entries but no '", index, "' (Keras 3 numbers its variables 0, 1, ...)");
        lw.weights.emplace_back(path + "/vars/" + index, dataset(vars.get(), path, index));
      }
      if (!lw.weights.empty()) out.push_back(std::move(lw));
    }
  }

  // The names of a group's links, in name order; a link that is not hard is refused.
  std::vector<std::string> hard_links(hid_t g, const std::string& path) {
    H5G_info_t info;
    STRATA_CHECK(H5Gget_info(g, &info) >= 0, path_, ": group '", path, "' cannot be read");
    STRATA_CHECK(info.nlinks <= kMaxKeras3Groups, path_, ": group '", path, "' declares ", info.nlinks, " entries");
    std::vector<std::string> names;
    for (hsize_t i = 0; i < info.nlinks; ++i) {
      const ssize_t size = H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
      STRATA_CHECK(size > 0 && static_cast<uint64_t>(size) <= file_size_, path_, ": group '", path, "': entry ", i,
                   " has no readable name");
      std::string name(static_cast<size_t>(size) + 1, '\0');
      H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(), name.size(), H5P_DEFAULT);
      name.resize(static_cast<size_t>(size));
      H5L_info_t link;
      STRATA_CHECK(H5Lget_info(g, name.c_str(), &link, H5P_DEFAULT) >= 0 && link.type == H5L_TYPE_HARD, path_, ": '",
                   path, "/", name, "' is a soft or external link (refused)");
      names.push_back(std::move(name));
    }
    return names;
  }

  // A list-of-strings attribute; Keras splits long ones into name0, name1, ...
  std::vector<std::string> strings(hid_t obj, const std::string& name, const std::string& owner) {
    if (H5Aexists(obj, name.c_str()) > 0) return read_strings(obj, name, owner);
    std::vector<std::string> out;
    for (int chunk = 0; H5Aexists(obj, (name + std::to_string(chunk)).c_str()) > 0; ++chunk)
      for (auto& s : read_strings(obj, name + std::to_string(chunk), owner)) out.push_back(std::move(s));
    STRATA_CHECK(!out.empty() || H5Aexists(obj, (name + "0").c_str()) > 0, path_, ": ", owner, " has no '", name,
                 "' attribute; not a Keras or TensorLayer weight file");
    return out;
  }

  std::vector<std::string> read_strings(hid_t obj, const std::string& name, const std::string& owner) {
    const std::string what = path_ + ": attribute '" + name + "' of " + owner;
    H5Handle attr(H5Aopen(obj, name.c_str(), H5P_DEFAULT), H5Aclose);
    STRATA_CHECK(attr.ok(), what, ": cannot be opened");
    H5Handle type(H5Aget_type(attr.get()), H5Tclose), space(H5Aget_space(attr.get()), H5Sclose);
    const hssize_t n = H5Sget_simple_extent_npoints(space.get());
    STRATA_CHECK(n >= 0, what, ": has no size");
    if (n == 0) return {};  // h5py stores an empty list as an empty float64 array
    STRATA_CHECK(H5Tget_class(type.get()) == H5T_STRING, what, ": is not a list of strings");
    std::vector<std::string> out;
    if (H5Tis_variable_str(type.get()) > 0) {
      STRATA_CHECK(static_cast<uint64_t>(n) <= file_size_, what, ": declares ", n, " strings, more than the file holds");
      std::vector<char*> ptrs(n, nullptr);
      H5Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
      H5Tset_size(mem.get(), H5T_VARIABLE);
      H5Tset_cset(mem.get(), H5Tget_cset(type.get()));
      STRATA_CHECK(H5Aread(attr.get(), mem.get(), ptrs.data()) >= 0, what, ": cannot be read");
      for (char* p : ptrs) {
        out.emplace_back(p ? p : "");
        H5free_memory(p);
      }
    } else {
      const size_t size = H5Tget_size(type.get());
      STRATA_CHECK(size > 0 && static_cast<uint64_t>(n) <= file_size_ / size, what, ": declares ", n, " strings of ",
                   size, " bytes, more than the file holds");
      std::string buf(static_cast<size_t>(n) * size, '\0');
      H5Handle mem(H5Tcopy(type.get()), H5Tclose);
      STRATA_CHECK(H5Aread(attr.get(), mem.get(), buf.data()) >= 0, what, ": cannot be read");
      for (hssize_t i = 0; i < n; ++i) {
        const char* p = buf.data() + i * size;
        out.emplace_back(p, strnlen(p, size));  // null-padded
      }
    }
    return out;
  }

  // Only IEEE half, single and double layouts: libhdf5 converts any other float layout with a
  // soft conversion that can ask for gigabytes (a fuzzed file with f32's fields but a wrong
  // precision made H5Dread allocate 4 GiB; fuzz/corpus/hdf5/oom-38766e5b...).
  static void check_ieee_float(hid_t type, size_t size, const std::string& what) {
    size_t spos = 0, epos = 0, esize = 0, mpos = 0, msize = 0;
    H5Tget_fields(type, &spos, &epos, &esize, &mpos, &msize);
    const size_t bits = size * 8;
    const bool layout_ok = (size == 2 && epos == 10 && esize == 5 && msize == 10 && H5Tget_ebias(type) == 15) ||
                           (size == 4 && epos == 23 && esize == 8 && msize == 23 && H5Tget_ebias(type) == 127) ||
                           (size == 8 && epos == 52 && esize == 11 && msize == 52 && H5Tget_ebias(type) == 1023);
    STRATA_CHECK(layout_ok && spos == bits - 1 && mpos == 0 && H5Tget_precision(type) == bits && H5Tget_offset(type) == 0,
                 what, ": has a float type that is not IEEE half, single or double (", size, " bytes)");
  }

  Tensor dataset(hid_t g, const std::string& layer, const std::string& name) {
    const std::string what = path_ + ": weight '" + name + "' of layer '" + layer + "'";
    STRATA_CHECK(path_exists(g, name), what, ": listed in weight_names but has no dataset");
    H5Handle ds(H5Dopen2(g, name.c_str(), H5P_DEFAULT), H5Dclose);
    STRATA_CHECK(ds.ok(), what, ": is not a dataset");
    H5Handle type(H5Dget_type(ds.get()), H5Tclose), space(H5Dget_space(ds.get()), H5Sclose);
    STRATA_CHECK(H5Sget_simple_extent_type(space.get()) != H5S_NULL, what, ": has an empty (null) dataspace");
    const int rank = H5Sget_simple_extent_ndims(space.get());
    STRATA_CHECK(rank >= 0, what, ": its dataspace has no rank (corrupt?)");  // checked_size bounds it
    hsize_t dims[H5S_MAX_RANK];
    H5Sget_simple_extent_dims(space.get(), dims, nullptr);

    DType dtype;
    hid_t mem;
    const H5T_class_t cls = H5Tget_class(type.get());
    const size_t size = H5Tget_size(type.get());
    if (cls == H5T_FLOAT) {
      check_ieee_float(type.get(), size, what);
      dtype = size == 8 ? kFloat64 : kFloat32;  // float16 converts to float32
      mem = size == 8 ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT;
    } else if (cls == H5T_INTEGER && H5Tget_sign(type.get()) == H5T_SGN_2) {
      dtype = size == 8 ? kInt64 : kInt32;
      mem = size == 8 ? H5T_NATIVE_INT64 : H5T_NATIVE_INT32;
    } else if (cls == H5T_INTEGER && size == 1) {
      dtype = kUInt8;
      mem = H5T_NATIVE_UINT8;
    } else if (cls == H5T_ENUM && size == 1) {  // h5py's bool
      dtype = kBool;
      mem = -1;
    } else {
      throw Error(what + ": has an unsupported type (expected float, signed integer, uint8 or bool)");
    }
    const std::vector<uint64_t> sizes(dims, dims + rank);
    const CheckedSize checked = checked_size(sizes, itemsize(dtype), what);
    const uint64_t need = checked.bytes, stored = H5Dget_storage_size(ds.get());
    STRATA_CHECK(need <= stored * kMaxExpansion + 4096 && stored <= file_size_, what, ": declares shape ",
                 checked.shape.str(), " (", need, " bytes) but stores only ", stored, " bytes; refused");
    Tensor t = Tensor::empty(checked.shape, dtype);
    H5Handle native;
    if (mem < 0) {
      native = H5Handle(H5Tget_native_type(type.get(), H5T_DIR_ASCEND), H5Tclose);
      mem = native.get();
    }
    if (checked.numel > 0) STRATA_CHECK(H5Dread(ds.get(), mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, t.raw_data()) >= 0, what, ": cannot be read (corrupt?)");
    if (dtype == kBool) {
      const auto* p = static_cast<const unsigned char*>(t.raw_data());
      for (int64_t i = 0; i < checked.numel; ++i) STRATA_CHECK(p[i] <= 1, what, ": bool element ", i, " is ", int(p[i]));
    }
    return t;
  }

  // Whether each '/'-separated prefix of `name` exists, then the whole (H5Lexists needs this).
  static bool path_exists(hid_t g, const std::string& name) {
    for (size_t p = name.find('/'); p != std::string::npos; p = name.find('/', p + 1))
      if (H5Lexists(g, name.substr(0, p).c_str(), H5P_DEFAULT) <= 0) return false;
    return H5Lexists(g, name.c_str(), H5P_DEFAULT) > 0;
  }

  std::string file_, path_, model_config_;
  uint64_t file_size_ = 0;
};

// Fixed-length, null-padded byte strings: what h5py writes for a list of bytes.
void write_strings(hid_t obj, const char* name, const std::vector<std::string>& values, const std::string& path) {
  size_t width = 1;
  for (const auto& v : values) width = std::max(width, v.size());
  std::string buf(values.size() * width, '\0');
  for (size_t i = 0; i < values.size(); ++i) std::memcpy(buf.data() + i * width, values[i].data(), values[i].size());
  H5Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), width);
  H5Tset_strpad(type.get(), H5T_STR_NULLPAD);
  const hsize_t n = values.size();
  H5Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  H5Handle attr(H5Acreate2(obj, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  STRATA_CHECK(attr.ok() && H5Awrite(attr.get(), type.get(), buf.data()) >= 0, path, ": cannot write attribute '",
               name, "'");
}

// A scalar fixed-length string, as h5py writes `f.attrs[name] = b"..."` (Keras's keras_version).
void write_string(hid_t obj, const std::string& name, const std::string& value, const std::string& path) {
  H5Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), std::max<size_t>(1, value.size()));
  H5Tset_strpad(type.get(), H5T_STR_NULLPAD);
  H5Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  std::string buf = value;
  buf.resize(std::max<size_t>(1, value.size()), '\0');
  H5Handle attr(H5Acreate2(obj, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  STRATA_CHECK(attr.ok() && H5Awrite(attr.get(), type.get(), buf.data()) >= 0, path, ": cannot write attribute '",
               name, "'");
}

H5Handle file_type(DType dtype) {
  switch (dtype) {
    case DType::f32: return H5Handle(H5Tcopy(H5T_IEEE_F32LE), H5Tclose);
    case DType::f64: return H5Handle(H5Tcopy(H5T_IEEE_F64LE), H5Tclose);
    case DType::i32: return H5Handle(H5Tcopy(H5T_STD_I32LE), H5Tclose);
    case DType::i64: return H5Handle(H5Tcopy(H5T_STD_I64LE), H5Tclose);
    case DType::u8: return H5Handle(H5Tcopy(H5T_STD_U8LE), H5Tclose);
    case DType::b8: {  // h5py's bool: an int8 enum FALSE = 0, TRUE = 1
      H5Handle t(H5Tenum_create(H5T_NATIVE_INT8), H5Tclose);
      const int8_t f = 0, tr = 1;
      H5Tenum_insert(t.get(), "FALSE", &f);
      H5Tenum_insert(t.get(), "TRUE", &tr);
      return t;
    }
  }
  throw Error("save_hdf5_weights: unknown dtype");
}

hid_t memory_type(DType dtype, hid_t file) {
  switch (dtype) {
    case DType::f32: return H5T_NATIVE_FLOAT;
    case DType::f64: return H5T_NATIVE_DOUBLE;
    case DType::i32: return H5T_NATIVE_INT32;
    case DType::i64: return H5T_NATIVE_INT64;
    case DType::u8: return H5T_NATIVE_UINT8;
    case DType::b8: return file;
  }
  return file;
}

// The layers as one safetensors stream, from the reader's process to the caller's: tensor k is
// named "k"; metadata "layer.i" names layer i, "layer.i.weights" counts its weights (the next
// ones in order), "weight.k" names weight k; "model_config" is Keras 2's architecture, if any.
void write_layers(const std::vector<LayerWeights>& layers, const std::string& model_config, const ByteSink& sink) {
  NamedTensors tensors;
  Metadata metadata;
  if (!model_config.empty()) metadata["model_config"] = model_config;
  for (size_t i = 0; i < layers.size(); ++i) {
    metadata["layer." + std::to_string(i)] = layers[i].layer;
    metadata["layer." + std::to_string(i) + ".weights"] = std::to_string(layers[i].weights.size());
    for (const auto& [name, tensor] : layers[i].weights) {
      metadata["weight." + std::to_string(tensors.size())] = name;
      tensors.emplace_back(std::to_string(tensors.size()), tensor);
    }
  }
  write_safetensors(tensors, metadata, sink);
}

// The other end; the stream is checked as any other input (a reader's process whose memory a
// file corrupted could write anything).
std::vector<LayerWeights> read_layers(Safetensors stream, const std::string& path) {
  const auto entry = [&](const std::string& key) -> const std::string& {
    const auto it = stream.metadata.find(key);
    STRATA_CHECK(it != stream.metadata.end(), path, ": the reader's process sent no '", key, "'");
    return it->second;
  };
  std::vector<LayerWeights> layers;
  size_t next = 0;
  for (size_t i = 0; stream.metadata.count("layer." + std::to_string(i)) > 0; ++i) {
    const std::string& count = entry("layer." + std::to_string(i) + ".weights");
    size_t weights = 0;
    const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), weights);
    STRATA_CHECK(ec == std::errc() && end == count.data() + count.size() && weights <= stream.tensors.size() - next,
                 path, ": the reader's process sent a bad weight count for layer ", i);
    LayerWeights layer{entry("layer." + std::to_string(i)), {}};
    for (size_t k = next; k < next + weights; ++k) {
      STRATA_CHECK(stream.tensors[k].first == std::to_string(k), path, ": the reader's process sent weights out of order");
      layer.weights.emplace_back(entry("weight." + std::to_string(k)), std::move(stream.tensors[k].second));
    }
    next += weights;
    layers.push_back(std::move(layer));
  }
  STRATA_CHECK(next == stream.tensors.size(), path, ": the reader's process sent weights of no layer");
  return layers;
}

// A .keras archive (Keras 3's model.save: a ZIP of config.json, metadata.json and
// model.weights.h5): its config.json, and its weights file copied to a temporary file, removed
// with this object, since libhdf5 reads files, not bytes.
class KerasArchiveFiles {
 public:
  // The archive's files when `path` is a ZIP archive (its first bytes "PK\3\4"), else none.
  static std::optional<KerasArchiveFiles> of(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    char magic[4] = {};
    if (!in.read(magic, 4) || std::memcmp(magic, "PK\3\4", 4) != 0) return std::nullopt;
    detail::ZipReader zip(path);
    const auto& entries = zip.entries();
    auto entry = [&](const char* name) {
      return std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.name == name; });
    };
    const auto weights = entry("model.weights.h5"), config = entry("config.json");
    STRATA_CHECK(weights != entries.end(), path,
                 ": a ZIP archive without model.weights.h5 (not a Keras 3 .keras file)");
    return KerasArchiveFiles(zip.read(*weights), config == entries.end() ? "" : zip.read(*config), path);
  }
  KerasArchiveFiles(KerasArchiveFiles&& o) noexcept : weights_(std::move(o.weights_)), config_(std::move(o.config_)) {
    o.weights_.clear();
  }
  KerasArchiveFiles(const KerasArchiveFiles&) = delete;
  ~KerasArchiveFiles() {
    std::error_code ec;
    if (!weights_.empty()) std::filesystem::remove(weights_, ec);
  }
  const std::string& weights_file() const { return weights_; }
  const std::string& config() const { return config_; }

 private:
  KerasArchiveFiles(const std::string& weights, std::string config, const std::string& path)
      : config_(std::move(config)) {
    std::string pattern = (std::filesystem::temp_directory_path() / "strata-keras-XXXXXX").string();
    const int fd = mkstemp(pattern.data());
    STRATA_CHECK(fd >= 0, path, ": cannot make a temporary file for its model.weights.h5");
    weights_ = pattern;
    const bool written = write_all(fd, weights.data(), weights.size());
    ::close(fd);
    STRATA_CHECK(written, path, ": cannot write its model.weights.h5 to ", weights_);
  }
  std::string weights_, config_;
};

// libhdf5 overflows heap buffers and asks for gigabytes on some malformed files (found by
// fuzz/hdf5.cpp; docs/reliability.md), so it reads them in a process of its own, which may use
// as much memory as the file's datasets can expand to (Reader::dataset refuses more), plus 1 GiB
// for libhdf5 itself. Reads `file`; errors name `path`. Keras 2's architecture, when the file
// has one, goes to `model_config`.
std::vector<LayerWeights> read_in_child_process(const std::string& file, const std::string& path,
                                                std::string* model_config = nullptr) {
  SafetensorsDecoder decoder(path + " (from the reader's process)");
  std::error_code ec;
  const uint64_t file_size = std::filesystem::file_size(file, ec);
  const uint64_t budget = (uint64_t{1} << 30) + (ec ? 0 : std::min(file_size, uint64_t{1} << 40) * kMaxExpansion);
  run_in_child_process(
      path, budget,
      [&](const ByteSink& sink) {
        QuietErrors quiet;
        Reader reader(file, path);
        const std::vector<LayerWeights> layers = reader.run();
        write_layers(layers, reader.model_config(), sink);
      },
      [&](const char* data, size_t n) { decoder.feed(data, n); });
  Safetensors stream = decoder.finish();
  if (model_config != nullptr) {
    const auto it = stream.metadata.find("model_config");
    *model_config = it == stream.metadata.end() ? "" : it->second;
  }
  return read_layers(std::move(stream), path);
}

}  // namespace

std::vector<LayerWeights> load_hdf5_weights(const std::string& path) {
  const std::optional<KerasArchiveFiles> archive = KerasArchiveFiles::of(path);
  return read_in_child_process(archive ? archive->weights_file() : path, path);
}

KerasArchive load_keras_archive(const std::string& path) {
  const std::optional<KerasArchiveFiles> archive = KerasArchiveFiles::of(path);
  if (!archive) {  // Keras 2's model.save: HDF5 with the architecture in an attribute
    KerasArchive model;
    model.weights = read_in_child_process(path, path, &model.config);
    STRATA_CHECK(
        !model.config.empty(), path,
        ": no architecture (neither a Keras 3 .keras archive nor a Keras 2 model.save file with model_config)");
    return model;
  }
  STRATA_CHECK(!archive->config().empty(), path, ": the archive has no config.json (the model's architecture)");
  return {archive->config(), read_in_child_process(archive->weights_file(), path), true};
}

namespace {

// Creation properties: groups in paths ("dense_1/W:0", "layers/lstm/cell/vars") made on the
// way, and no modification times in the object headers: the same weights make the same bytes (a
// save that fails is checked to leave the old or the new file, byte for byte).
struct TimelessProperties {
  H5Handle lcpl{H5Pcreate(H5P_LINK_CREATE), H5Pclose};
  H5Handle gcpl{H5Pcreate(H5P_GROUP_CREATE), H5Pclose};
  H5Handle dcpl{H5Pcreate(H5P_DATASET_CREATE), H5Pclose};
  TimelessProperties() {
    H5Pset_create_intermediate_group(lcpl.get(), 1);
    H5Pset_obj_track_times(gcpl.get(), 0);
    H5Pset_obj_track_times(dcpl.get(), 0);
  }
};

void write_dataset(hid_t g, const std::string& name, const Tensor& t, hid_t lcpl, hid_t dcpl, const std::string& path,
                   const std::string& owner) {
  STRATA_CHECK(t.defined(), path, ": weight '", name, "' of '", owner, "' is undefined");
  const Tensor c = t.is_contiguous() ? t : t.contiguous();
  std::vector<hsize_t> dims(c.shape().begin(), c.shape().end());
  H5Handle space(c.dim() == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(c.dim(), dims.data(), nullptr), H5Sclose);
  H5Handle type = file_type(c.dtype());
  H5Handle ds(H5Dcreate2(g, name.c_str(), type.get(), space.get(), lcpl, dcpl, H5P_DEFAULT), H5Dclose);
  STRATA_CHECK(ds.ok(), path, ": cannot create dataset '", name, "' in '", owner, "' (name used twice?)");
  STRATA_CHECK(c.numel() == 0 || H5Dwrite(ds.get(), memory_type(c.dtype(), type.get()), H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                          c.raw_data()) >= 0,
               path, ": cannot write dataset '", name, "'");
}

// Writes the layers' weights as an HDF5 file at `target`; errors name `path`, the file the user asked for.
void write_hdf5_file(const std::string& target, const std::string& path, const std::vector<LayerWeights>& layers,
                     const std::vector<std::pair<std::string, std::string>>& root_attributes) {
  QuietErrors quiet;
  H5Handle file(H5Fcreate(target.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  STRATA_CHECK(file.ok(), path, ": cannot create the HDF5 file");
  const TimelessProperties props;
  const H5Handle &lcpl = props.lcpl, &gcpl = props.gcpl, &dcpl = props.dcpl;
  std::vector<std::string> names;
  for (const auto& l : layers) names.push_back(l.layer);
  write_strings(file.get(), "layer_names", names, path);
  for (const auto& [name, value] : root_attributes) write_string(file.get(), name, value, path);
  for (const auto& l : layers) {
    STRATA_CHECK(!l.layer.empty() && H5Lexists(file.get(), l.layer.c_str(), H5P_DEFAULT) <= 0, path, ": layer name '",
                 l.layer, "' is empty or appears twice");
    H5Handle g(H5Gcreate2(file.get(), l.layer.c_str(), lcpl.get(), gcpl.get(), H5P_DEFAULT), H5Gclose);
    STRATA_CHECK(g.ok(), path, ": cannot create group '", l.layer, "'");
    std::vector<std::string> weight_names;
    for (const auto& [name, t] : l.weights) weight_names.push_back(name);
    write_strings(g.get(), "weight_names", weight_names, path);
    for (const auto& [name, t] : l.weights) write_dataset(g.get(), name, t, lcpl.get(), dcpl.get(), path, l.layer);
  }
  STRATA_CHECK(H5Fflush(file.get(), H5F_SCOPE_GLOBAL) >= 0, path, ": cannot flush the file");
}

// Keras 3's layout (read by Reader::keras3_layers): each object's weights in "<path>/vars/<i>".
void write_keras3_file(const std::string& target, const std::string& path, const std::vector<Keras3Object>& objects) {
  QuietErrors quiet;
  H5Handle file(H5Fcreate(target.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  STRATA_CHECK(file.ok(), path, ": cannot create the HDF5 file");
  const TimelessProperties props;
  for (const auto& o : objects) {
    const std::string vars = o.path.empty() ? "vars" : o.path + "/vars";
    STRATA_CHECK(H5Lexists(file.get(), o.path.empty() ? "vars" : o.path.c_str(), H5P_DEFAULT) <= 0, path, ": object '",
                 o.path, "' appears twice");
    H5Handle g(H5Gcreate2(file.get(), vars.c_str(), props.lcpl.get(), props.gcpl.get(), H5P_DEFAULT), H5Gclose);
    STRATA_CHECK(g.ok(), path, ": cannot create group '", vars, "'");
    write_string(g.get(), "name", o.name, path);
    for (size_t i = 0; i < o.vars.size(); ++i)
      write_dataset(g.get(), std::to_string(i), o.vars[i], props.lcpl.get(), props.dcpl.get(), path, o.path);
  }
  STRATA_CHECK(H5Fflush(file.get(), H5F_SCOPE_GLOBAL) >= 0, path, ": cannot flush the file");
}

}  // namespace

void save_hdf5_weights(const std::string& path, const std::vector<LayerWeights>& layers,
                       const std::vector<std::pair<std::string, std::string>>& root_attributes) {
  // libhdf5 writes a temporary file beside `path`, which replaces it only once whole and synced.
  AtomicFile out(path);
  write_hdf5_file(out.temporary_path(), path, layers, root_attributes);
  out.commit();
}

void save_keras3_hdf5(const std::string& path, const std::vector<Keras3Object>& objects) {
  AtomicFile out(path);
  write_keras3_file(out.temporary_path(), path, objects);
  out.commit();
}

std::vector<LayerWeights> layers_of(const NamedTensors& weights) {
  std::vector<LayerWeights> out;
  for (const auto& [name, t] : weights) {
    const size_t slash = name.rfind('/');
    STRATA_CHECK(slash != std::string::npos && slash > 0, "layers_of: weight name '", name,
                 "' has no layer part (expected \"layer/weight\")");
    const std::string layer = name.substr(0, slash);
    if (out.empty() || out.back().layer != layer) out.push_back({layer, {}});
    out.back().weights.emplace_back(name, t);
  }
  return out;
}

}  // namespace strata::io
