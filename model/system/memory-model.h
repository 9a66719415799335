/*
 * Memory models for MEM_LOAD / MEM_STORE nodes. The interface lets a
 * fabric-based disaggregated memory (RDMA READ/WRITE over the RoCE backend)
 * be added later; the models here are analytical.
 */

#ifndef ASTRA_MEMORY_MODEL_H
#define ASTRA_MEMORY_MODEL_H

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <functional>
#include <string>
#include <vector>

namespace ns3
{
namespace astra
{

/**
 * \ingroup astra-sim
 * A memory an NPU loads from / stores to.
 */
class MemoryModel : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    ~MemoryModel() override;

    /**
     * Start an access; \p done runs when it completes. Throws
     * std::runtime_error when the model cannot serve it.
     * \param npu the accessing NPU
     * \param bytes size of the tensor
     * \param store true for MEM_STORE
     * \param done completion callback
     */
    virtual void Access(uint32_t npu, uint64_t bytes, bool store, std::function<void()> done) = 0;
    /// \return a short name for reports
    virtual std::string GetName() const = 0;
};

/**
 * \ingroup astra-sim
 * Local (HBM) memory: time = Latency + bytes / Bandwidth, no contention.
 */
class LocalMemoryModel : public MemoryModel
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    void Access(uint32_t npu, uint64_t bytes, bool store, std::function<void()> done) override;
    std::string GetName() const override;
    /// \return the access time of \p bytes
    Time GetAccessTime(uint64_t bytes) const;

  private:
    double m_latencyNs{0};
    double m_bwGBps{0};
};

/**
 * \ingroup astra-sim
 * ASTRA-sim's analytical remote memory: time = latency + bytes / bandwidth,
 * with the contention of the memory type: NO_MEMORY_EXPANSION (any access is
 * an error), PER_NODE_MEMORY_EXPANSION (one FIFO per node of NpusPerNode
 * NPUs), PER_NPU_MEMORY_EXPANSION (private, no contention), MEMORY_POOL (one
 * FIFO shared by all).
 */
class AnalyticalRemoteMemory : public MemoryModel
{
  public:
    /// Memory types of the remote-memory configuration.
    enum Type
    {
        NO_MEMORY_EXPANSION,
        PER_NODE_MEMORY_EXPANSION,
        PER_NPU_MEMORY_EXPANSION,
        MEMORY_POOL
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    void Access(uint32_t npu, uint64_t bytes, bool store, std::function<void()> done) override;
    std::string GetName() const override;

    /**
     * Build from a remote-memory JSON file (`memory-type`, `remote-mem-latency`,
     * `remote-mem-bw`, `num-nodes`, `num-npus-per-node`). Throws
     * std::runtime_error naming the file and key on bad input.
     */
    static Ptr<AnalyticalRemoteMemory> FromFile(const std::string& path);
    /// \return the configured type
    Type GetMemoryType() const;

  private:
    Type m_type{NO_MEMORY_EXPANSION};
    double m_latencyNs{0};
    double m_bwGBps{0};
    uint32_t m_npusPerNode{1};
    std::vector<Time> m_busyUntil; //!< per FIFO resource
    std::string m_source;
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_MEMORY_MODEL_H */
