#include "jobs/featurize_job.h"

#include "common/json_writer.h"
#include "graph/graph_encoding.h"

namespace gs::jobs {
namespace {

// Above this many entries the untruncated hf_input_edges would dwarf everything else (a large
// disconnected molecule has 510 hop slots); such rows get the model's truncated paths instead.
constexpr size_t kMaxUntruncatedEdgeEntries = 20'000'000;

template <typename T>
void writeMatrix(JsonWriter& w, const T* data, int rows, int cols, int offset_base = 0, int col_stride = 0) {
  w.beginArray();
  for (int r = 0; r < rows; ++r) {
    w.beginArray();
    for (int c = 0; c < cols; ++c) w.value(static_cast<int64_t>(data[r * cols + c]) + offset_base + col_stride * c);
    w.endArray();
  }
  w.endArray();
}

void writeEdgeInputs(JsonWriter& w, const std::vector<int16_t>& ei, int n, int hops) {
  w.beginArray();
  for (int i = 0; i < n; ++i) {
    w.beginArray();
    for (int j = 0; j < n; ++j) {
      const int16_t* p = ei.data() + ((static_cast<size_t>(i) * n + j) * hops) * graph::kBondFeatures;
      writeMatrix(w, p, hops, graph::kBondFeatures);
    }
    w.endArray();
  }
  w.endArray();
}

void writeGraphFields(JsonWriter& w, const graph::Featurized& f, graph::Convention convention) {
  const graph::MolGraph& g = f.graph;
  const graph::GraphEncoding& enc = f.enc;
  const int n = g.num_nodes;
  w.key("node_feat");
  writeMatrix(w, g.node_feat.data(), n, graph::kAtomFeatures);
  w.key("edge_index").beginArray().beginArray();
  for (int32_t s : g.edge_src) w.value(s);
  w.endArray().beginArray();
  for (int32_t d : g.edge_dst) w.value(d);
  w.endArray().endArray();
  w.key("edge_attr");
  writeMatrix(w, g.edge_attr.data(), g.numEdges(), graph::kBondFeatures);
  w.key("input_nodes");
  writeMatrix(w, g.node_feat.data(), n, graph::kAtomFeatures, graph::nodeIndexOffset(convention), 512);
  w.key("hf_input_nodes");
  writeMatrix(w, g.node_feat.data(), n, graph::kAtomFeatures, 3, 512);
  w.key("hf_in_degree").beginArray();
  for (int16_t d : enc.degree) w.value(d + 1);
  w.endArray();
  w.key("hf_spatial_pos");
  writeMatrix(w, enc.dist.data(), n, n, 1);
  w.key("hf_attn_edge_type").beginArray();
  for (int i = 0; i < n; ++i)
    writeMatrix(w, enc.edge_type.data() + static_cast<size_t>(i) * n * graph::kBondFeatures, n, graph::kBondFeatures);
  w.endArray();
  const size_t full = static_cast<size_t>(n) * n * enc.max_dist * graph::kBondFeatures;
  const bool truncate = full > kMaxUntruncatedEdgeEntries;
  w.key("hf_input_edges");
  if (truncate || enc.hops == enc.max_dist) {
    writeEdgeInputs(w, enc.edge_input, n, enc.hops);
  } else {
    writeEdgeInputs(w, graph::edgeInputs(graph::floydWarshall(g), enc.edge_type, enc.max_dist), n, enc.max_dist);
  }
  if (truncate) w.field("hf_input_edges_truncated_to", static_cast<int64_t>(enc.hops));
}

void writeTableRow(const chem::MoleculeRow& row, std::ostream& out) {
  out << row.row << '\t' << row.id << '\t' << statusCodeName(row.status.code()) << '\t';
  if (row.features) {
    const auto& f = *row.features;
    out << f.numNodes() << '\t' << f.graph.numEdges() / 2 << '\t' << f.enc.max_dist << '\t' << f.enc.hops;
  } else {
    out << "\t\t\t";
  }
  out << '\t' << (row.status.isOk() ? "" : row.status.message()) << '\n';
}

}  // namespace

void writeFeatureJson(const chem::MoleculeRow& row, graph::Convention convention, std::ostream& out) {
  JsonWriter w(out);
  w.beginObject();
  w.field("row", row.row).field("id", row.id).field("smiles", row.input);
  w.field("status", statusCodeName(row.status.code()));
  if (!row.status.isOk()) w.field("message", row.status.message());
  w.field("num_nodes", row.features ? row.features->numNodes() : 0);
  if (row.features) writeGraphFields(w, *row.features, convention);
  w.endObject();
}

Result<JobSummary> runFeaturize(const FeaturizeJobOptions& options, std::ostream& out) {
  auto reader = data::openReader(options.input, options.reader);
  if (!reader.isOk()) return reader.status();
  JobSummary summary;
  if (!options.json) out << "row\tid\tstatus\tatoms\tbonds\tmax_dist\thops\tmessage\n";
  data::RawRecord record;
  while (reader.value()->next(record)) {
    chem::MoleculeRow row = chem::featurizeRecord(record, options.featurize);
    ++summary.rows;
    ++summary.by_status[statusCodeName(row.status.code())];
    if (options.json) {
      writeFeatureJson(row, options.convention, out);
      out << '\n';
    } else {
      writeTableRow(row, out);
    }
  }
  return summary;
}

}  // namespace gs::jobs
