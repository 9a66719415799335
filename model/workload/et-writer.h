/*
 * Chakra execution trace (ET) writer: WorkloadGraph -> .et file.
 */

#ifndef ASTRA_ET_WRITER_H
#define ASTRA_ET_WRITER_H

#include "workload-graph.h"

#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * Options of the Chakra ET writer.
 */
struct ChakraWriteOptions
{
    /// Version written into GlobalMetadata when the graph has none.
    std::string version{"0.0.4"};
    /// Write a legacy (2023) file: no GlobalMetadata header, all deps in ctrl_deps.
    bool legacy{false};
    /// gzip-compress the output (the reader detects it by the magic bytes).
    bool gzip{false};
};

/**
 * \ingroup astra-sim
 * Serialize a graph as a Chakra ET stream: GlobalMetadata (version; a "schema" attribute;
 * one Int64List attribute "comm_group:NAME" per entry of commGroups) then one Node per
 * graph node in file order, each varint32-length-delimited. Attributes written:
 * comm_type (COMM_COLL, int64), comm_size (int64), comm_src/comm_dst (int32; SEND/RECV),
 * comm_tag (int64; SEND/RECV), comm_priority (int32, if nonzero), pg_name (string, if
 * non-empty), involved_dim (bool list, if non-empty), num_ops (uint64, if present),
 * tensor_size (uint64, if nonzero), is_cpu_op (bool, COMP), op_type (string, if non-empty),
 * duration_ns (uint64, if nonzero; this module's extension).
 * \param g graph
 * \param opts options
 * \return the file content
 */
std::string SerializeChakra(const WorkloadGraph& g,
                            const ChakraWriteOptions& opts = ChakraWriteOptions());

/**
 * \ingroup astra-sim
 * Write a graph to a file (see SerializeChakra).
 * \param g graph
 * \param path output file
 * \param opts options
 * \throw WorkloadError if the file cannot be written
 */
void WriteChakraFile(const WorkloadGraph& g,
                     const std::string& path,
                     const ChakraWriteOptions& opts = ChakraWriteOptions());

/**
 * \ingroup astra-sim
 * Write graphs[i] to PREFIX.<i>.et (i = position in the vector = rank).
 * \param graphs one graph per rank
 * \param prefix output prefix (its directory must exist)
 * \param opts options
 */
void WriteChakraPrefix(const std::vector<WorkloadGraph>& graphs,
                       const std::string& prefix,
                       const ChakraWriteOptions& opts = ChakraWriteOptions());

} // namespace astra
} // namespace ns3

#endif /* ASTRA_ET_WRITER_H */
