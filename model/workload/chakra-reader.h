/*
 * Chakra execution trace (ET) reader: PREFIX.<rank>.et files -> WorkloadGraph.
 */

#ifndef ASTRA_CHAKRA_READER_H
#define ASTRA_CHAKRA_READER_H

#include "workload-graph.h"

#include "ns3/astra-limits.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * Options of the Chakra ET reader.
 */
struct ChakraReadOptions
{
    /// Drop ctrl deps naming ids absent from the file (real PyTorch-derived traces
    /// have them) instead of failing; the count is reported (a warning, ASTRA_WARN) and stored in
    /// WorkloadGraph::droppedDanglingDeps.
    bool dropDanglingCtrlDeps{false};
    /// Same for data deps (default false: a dangling data dep is an error).
    bool dropDanglingDataDeps{false};
    /// Check deps (dangling, cycles). Disable only for speed on trusted inputs.
    bool validate{true};
    /// Treat duration_micros as cycles (ns) instead of microseconds. The current ASTRA-sim
    /// release converts duration_micros to ns (x 1000, the default here); older releases
    /// replayed the value as cycles, and Chakra's text converter writes cycles into it.
    /// When true, a node without a duration_ns attribute gets durationNs = duration_micros
    /// (so GetDurationNs() returns the raw value as ns); durationMicros keeps the raw value.
    bool durationMicrosAsCycles{false};
    /// Largest trace file accepted, and largest size its gzip stream may decompress to
    /// (bytes; a gzip bomb ends in an error naming this limit, not in exhausted memory).
    uint64_t maxFileBytes{limits::kMaxTraceFileBytes};
};

/**
 * \ingroup astra-sim
 * Read one Chakra ET file.
 *
 * Accepts: the current layout (GlobalMetadata then Nodes, varint32-delimited),
 * legacy files without GlobalMetadata (first message is a Node; graph.legacy = true),
 * gzip-compressed files (detected by the bytes 1f 8b; decompressed up to opts.maxFileBytes),
 * a zero-length message as end of
 * stream, unknown fields, packed or unpacked repeated numerics, integer attributes of any
 * integer kind (int32, int64, uint32, uint64, sint32/64, fixed32/64, sfixed32/64, bool, integral
 * doubles, numeric strings), forward deps and ids in any order.
 *
 * Attributes mapped into WorkloadNode: comm_type, comm_size, comm_src, comm_dst, comm_tag,
 * comm_priority, pg_name (string or integer; "" = all NPUs), involved_dim (bool or integer
 * list), num_ops, tensor_size, is_cpu_op, op_type, duration_ns (extension).
 *
 * Communicator groups (WorkloadGraph::commGroups), from GlobalMetadata attributes and
 * from METADATA nodes:
 *  - an attribute named "comm_group:NAME" or "pg:NAME" holding an integer list -> group NAME;
 *  - a METADATA node with "pg_ranks" (or "ranks") integer list and "pg_name" (or "pg_id")
 *    -> group named by pg_name;
 *  - a string attribute "comm_groups" / "pg_config" / "process_groups" holding JSON,
 *    either {"NAME": [ranks], ...} or [{"pg_name": NAME, "ranks": [ranks]}, ...]
 *    (the layout of PyTorch's distributed pg_config).
 *
 * \param path file name
 * \param rank NPU rank stored in the graph
 * \param opts options
 * \return the graph (validated unless opts.validate is false)
 * \throw WorkloadError naming the file, the byte offset / node id and the cause
 */
WorkloadGraph ReadChakraFile(const std::string& path,
                             uint32_t rank,
                             const ChakraReadOptions& opts = ChakraReadOptions());

/**
 * \ingroup astra-sim
 * Read a Chakra ET stream held in memory (possibly gzip-compressed).
 * \param bytes file content
 * \param name name used in messages and stored in graph.file
 * \param rank NPU rank
 * \param opts options
 * \return the graph
 */
WorkloadGraph ReadChakraBuffer(const std::string& bytes,
                               const std::string& name,
                               uint32_t rank,
                               const ChakraReadOptions& opts = ChakraReadOptions());

/**
 * \ingroup astra-sim
 * \param prefix workload prefix (files PREFIX.<rank>.et)
 * \return the ranks r for which PREFIX.<r>.et (or PREFIX.<r>.et.gz) exists, sorted
 */
std::vector<uint32_t> FindChakraRankFiles(const std::string& prefix);

/**
 * \ingroup astra-sim
 * \param prefix workload prefix
 * \param rank rank
 * \return PREFIX.<rank>.et, or PREFIX.<rank>.et.gz if only that exists
 */
std::string ChakraRankFile(const std::string& prefix, uint32_t rank);

/**
 * \ingroup astra-sim
 * Read PREFIX.<rank>.et for rank 0..expectedRanks-1.
 * \param prefix workload prefix
 * \param expectedRanks number of NPUs of the topology; 0 = as many as found (0..N-1)
 * \param opts options
 * \return one graph per rank, index = rank
 * \throw WorkloadError on a missing rank file (naming the rank and path), on extra files
 *        PREFIX.<r>.et with r >= expectedRanks (found vs expected), or any file error
 */
std::vector<WorkloadGraph> ReadChakraPrefix(const std::string& prefix,
                                            uint32_t expectedRanks,
                                            const ChakraReadOptions& opts = ChakraReadOptions());

} // namespace astra
} // namespace ns3

#endif /* ASTRA_CHAKRA_READER_H */
