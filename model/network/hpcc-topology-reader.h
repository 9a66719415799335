/*
 * The network files users of the reference's ns-3 backend bring: its
 * config.txt (HPCC / SimAI keys; the RoCE parameters go through
 * RoceConfigReader) names a TOPOLOGY_FILE in HPCC's format
 *
 *     <nodes> <switches> <links>
 *     <switch id> ...
 *     <src> <dst> <rate> <delay> <error rate>      (one line per link)
 *
 * whose NPUs are the node ids 0 .. nodes - switches - 1. The shapes that are
 * dimensions here are read as such: one switch with every NPU on it (a Switch
 * dimension) and a two-tier leaf-spine (a Clos dimension: consecutive NPUs per
 * leaf, every leaf on every spine). Any other graph is an error saying so.
 */

#ifndef ASTRA_HPCC_TOPOLOGY_READER_H
#define ASTRA_HPCC_TOPOLOGY_READER_H

#include "topology.h"

#include <string>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * \param path a file
 * \return whether it is an HPCC / SimAI / ns-3 backend config.txt ("KEY value"
 *         lines whose first key is one of HPCC's keys)
 */
bool IsHpccConfigFile(const std::string& path);

/**
 * \ingroup astra-sim
 * The TOPOLOGY_FILE a config.txt names, resolved as given, then next to the
 * config.txt ("" if the file has no TOPOLOGY_FILE key).
 * \param configPath the config.txt
 * \return the path of the topology file
 * \throw ConfigError if the key names a file that is found in neither place
 */
std::string HpccTopologyFileOf(const std::string& configPath);

/**
 * \ingroup astra-sim
 * Read an HPCC-format topology file as a one-dimensional topology (single
 * switch: Switch; two-tier leaf-spine: Clos).
 * \param path the topology file
 * \return the topology (source = path)
 * \throw ConfigError naming the file, the line and the cause (malformed numbers,
 *        counts that disagree, unknown or repeated ids, links of different rates
 *        or delays within a tier, a graph of another shape)
 */
Topology ReadHpccTopology(const std::string& path);

} // namespace astra
} // namespace ns3

#endif /* ASTRA_HPCC_TOPOLOGY_READER_H */
