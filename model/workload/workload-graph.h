/*
 * In-memory workload graph of one NPU: what the Chakra ET reader, the
 * ASTRA-sim 1.0 text-workload converter and the generators produce, and what
 * the per-NPU engine executes.
 */

#ifndef ASTRA_WORKLOAD_GRAPH_H
#define ASTRA_WORKLOAD_GRAPH_H

#include "ns3/astra-diagnostics.h"

#include <cstdint>
#include <map>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

/// Chakra NodeType values.
enum class NodeKind : uint8_t
{
    INVALID = 0,
    METADATA = 1,
    MEM_LOAD = 2,
    MEM_STORE = 3,
    COMP = 4,
    COMM_SEND = 5,
    COMM_RECV = 6,
    COMM_COLL = 7
};

/// Chakra CollectiveCommType values.
enum class CollType : uint8_t
{
    ALL_REDUCE = 0,
    REDUCE = 1,
    ALL_GATHER = 2,
    GATHER = 3,
    SCATTER = 4,
    BROADCAST = 5,
    ALL_TO_ALL = 6,
    REDUCE_SCATTER = 7,
    REDUCE_SCATTER_BLOCK = 8,
    BARRIER = 9
};

/**
 * \ingroup astra-sim
 * Error in a workload input (Chakra ET file, text workload, generated graph).
 * what() names the file, the node id where relevant, and the cause.
 */
class WorkloadError : public InputError
{
  public:
    using InputError::InputError;
};

/// \return e.g. "ALL_REDUCE"
const char* CollTypeName(CollType t);
/// \return e.g. "COMP"
const char* NodeKindName(NodeKind k);

/// Streams NodeKindName(k).
std::ostream& operator<<(std::ostream& os, NodeKind k);
/// Streams CollTypeName(t).
std::ostream& operator<<(std::ostream& os, CollType t);

/// One node of a workload graph. Fields not relevant to a kind stay default.
struct WorkloadNode
{
    uint64_t id{0};                          //!< id, unique within its file
    std::string name;                        //!< node name
    NodeKind kind{NodeKind::INVALID};        //!< node type
    std::vector<uint64_t> dataDeps;          //!< data dependencies (ids)
    std::vector<uint64_t> ctrlDeps;          //!< control dependencies (ids)
    uint64_t durationMicros{0};              //!< measured duration (COMP replay)
    uint64_t numOps{0};                      //!< FLOPs (roofline)
    uint64_t tensorSize{0};                  //!< bytes touched (roofline, MEM_*)
    bool hasNumOps{false};                   //!< num_ops attribute present
    bool isCpuOp{false};                     //!< is_cpu_op
    CollType collType{CollType::ALL_REDUCE}; //!< comm_type (COMM_COLL)
    uint64_t commSize{0};                    //!< comm_size in bytes
    int32_t commSrc{-1};                     //!< comm_src (SEND/RECV)
    int32_t commDst{-1};                     //!< comm_dst (SEND/RECV)
    int64_t commTag{0};                      //!< comm_tag (SEND/RECV)
    int32_t commPriority{0};                 //!< comm_priority (EXPLICIT scheduling)
    std::string pgName;                      //!< communicator group ("" = all NPUs)
    std::vector<bool> involvedDim;           //!< dimensions a collective spans (empty = all)
    std::string opType;                      //!< op_type (COMP)
    /// in_switch (COMM_COLL): run in the switches where a dimension aggregates (the flag of
    /// the reference's in-switch branch; doc/in-network.rst)
    bool inSwitch{false};
    /// Duration in ns; when nonzero it takes precedence over durationMicros.
    /// Set by the text-workload converter (1 cycle = 1 ns) and read from / written
    /// to the ET attribute "duration_ns" (uint64), an extension of this module.
    uint64_t durationNs{0};

    /// \return durationNs if nonzero, else durationMicros * 1000
    uint64_t GetDurationNs() const
    {
        return durationNs != 0 ? durationNs : durationMicros * 1000;
    }
};

/// Field-by-field equality (used by round-trip tests).
bool operator==(const WorkloadNode& a, const WorkloadNode& b);
/// \return !(a == b)
bool operator!=(const WorkloadNode& a, const WorkloadNode& b);

/**
 * \ingroup astra-sim
 * The graph of one NPU. Nodes are stored in file order; `index` maps ids to
 * positions. Validation (dangling deps, cycles) is done by the reader and
 * reported with the file name and node id.
 */
struct WorkloadGraph
{
    std::string file;                   //!< source file (for messages)
    uint32_t rank{0};                   //!< NPU rank this graph belongs to
    std::string version;                //!< GlobalMetadata version ("" for legacy files)
    std::vector<WorkloadNode> nodes;    //!< nodes in file order
    std::map<uint64_t, uint32_t> index; //!< id -> position in nodes
    /// communicator groups declared in METADATA nodes: name -> member ranks
    std::map<std::string, std::vector<uint32_t>> commGroups;

    bool legacy{false};              //!< file had no GlobalMetadata header
    uint64_t droppedDanglingDeps{0}; //!< deps dropped by the reader's drop options

    /// Rebuild `index` from `nodes`; throws WorkloadError on duplicate ids (naming file and id).
    void BuildIndex();

    /// \return the node with this id, or nullptr (needs an up-to-date index)
    const WorkloadNode* Find(uint64_t id) const;

    /**
     * Check the graph: rebuilds the index (duplicate ids), then every dep must name
     * an id of this graph and the deps must be acyclic. Throws WorkloadError naming
     * the file, the node id and the missing dep / the ids on a cycle.
     * \param dropDanglingCtrl remove ctrl deps naming absent ids instead of throwing
     * \param dropDanglingData remove data deps naming absent ids instead of throwing
     * \return number of deps dropped (also added to droppedDanglingDeps)
     */
    uint64_t Validate(bool dropDanglingCtrl = false, bool dropDanglingData = false);

    /// \return the node ids in a topological order (deps first); throws on cycles
    std::vector<uint64_t> TopologicalOrder() const;
};

/// A dependency naming an id that is not in the graph.
struct DanglingDependency
{
    uint32_t node{0}; //!< position of the node that has it
    uint64_t dep{0};  //!< the id it names
    bool ctrl{false}; //!< a control (true) or data (false) dependency
};

/**
 * \ingroup astra-sim
 * The dependencies of a graph resolved to node positions: what every
 * executor of a graph (the per-NPU engine, the custom-collective
 * interpreter, the topological sort) needs. Edges are stored compressed:
 * the nodes that depend on node i are children[childStart[i] ..
 * childStart[i + 1]), in increasing position (a node depending twice on i is
 * listed twice), and pending[i] counts node i's resolved dependencies.
 */
struct DependencyTable
{
    std::vector<uint32_t> pending;            //!< resolved dependencies per node
    std::vector<uint32_t> childStart;         //!< n + 1 offsets into children
    std::vector<uint32_t> children;           //!< dependent node positions
    std::vector<DanglingDependency> dangling; //!< deps naming absent ids (not in the table)

    /**
     * Resolve a graph's data and control dependencies (data before control
     * per node, in node order). Dependencies naming absent ids are left out
     * and listed in `dangling`, in the same order; the caller decides whether
     * they are errors.
     * \param g the graph
     * \return the table
     */
    static DependencyTable Build(const WorkloadGraph& g);
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_WORKLOAD_GRAPH_H */
