/*
 * Chakra execution trace (ET) writer: WorkloadGraph -> .et file.
 */

#ifndef ASTRA_ET_WRITER_H
#define ASTRA_ET_WRITER_H

#include "workload-graph.h"

#include <cstdint>
#include <map>
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
    /// zlib compression level of the gzip output: 0 (stored) .. 9 (smallest), or -1 for
    /// zlib's default (6). Only used when gzip is set; other values are a WorkloadError.
    int gzipLevel{-1};
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

/**
 * \ingroup astra-sim
 * Append one Node to a Chakra ET stream: its varint32 length, then the encoded message.
 * The bytes are identical to what SerializeChakra writes for the same node (same fields,
 * same attributes in the same order), but they are produced by a direct wire-format
 * encoder without protobuf message objects, so that trace generators can stream millions
 * of nodes per second into a buffer.
 * \param out the stream (appended to)
 * \param n the node
 * \param legacy write data deps as ctrl deps (legacy 2023 layout, see ChakraWriteOptions)
 */
void AppendChakraNode(std::string& out, const WorkloadNode& n, bool legacy = false);

/**
 * \ingroup astra-sim
 * The GlobalMetadata message of a Chakra ET stream, varint32-length-delimited, exactly as
 * SerializeChakra writes it (version, the "schema" attribute, one "comm_group:NAME" Int64List
 * attribute per group). Followed by AppendChakraNode calls this gives a complete file.
 * \param version the version string
 * \param commGroups groups to declare in the header (may be empty)
 * \return the bytes
 */
std::string SerializeChakraHeader(
    const std::string& version,
    const std::map<std::string, std::vector<uint32_t>>& commGroups = {});

/**
 * \ingroup astra-sim
 * gzip-compress a buffer (RFC 1952 stream, as gzip(1) writes it; the Chakra reader
 * detects it by its first bytes 1f 8b).
 * \param bytes the data
 * \param level 0 (stored) .. 9 (smallest), or -1 for zlib's default (6)
 * \return the compressed bytes
 * \throw WorkloadError on a level outside -1 .. 9 or a zlib failure
 */
std::string GzipBytes(const std::string& bytes, int level = -1);

/**
 * \ingroup astra-sim
 * Write an already serialized stream to a file, gzip-compressed when opts.gzip is set
 * (at opts.gzipLevel).
 * \param bytes the stream (header and nodes)
 * \param path output file
 * \param opts options (gzip, gzipLevel; the others are properties of the bytes)
 * \return the number of bytes written to the file
 * \throw WorkloadError if the file cannot be written
 */
uint64_t WriteChakraBytes(const std::string& bytes,
                          const std::string& path,
                          const ChakraWriteOptions& opts = ChakraWriteOptions());

} // namespace astra
} // namespace ns3

#endif /* ASTRA_ET_WRITER_H */
