/*
 * Memory models for MEM_LOAD / MEM_STORE nodes. The interface lets a
 * fabric-based disaggregated memory (RDMA READ/WRITE over the RoCE backend)
 * be added later; the models here are analytical.
 */

#ifndef ASTRA_MEMORY_MODEL_H
#define ASTRA_MEMORY_MODEL_H

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
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
    /**
     * Check that the model can serve a system of this many NPUs (called when
     * the applications are installed). The default accepts any count.
     * \param npus the number of NPUs
     * \throw ConfigError naming the model's configuration when it cannot
     */
    virtual void CheckNpuCount(uint32_t npus) const;
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

/// Remote (disaggregated) memory types of ASTRA-sim's remote memory configuration.
enum class MemoryType : uint8_t
{
    NO_MEMORY_EXPANSION,       //!< no remote memory: any MEM_LOAD / MEM_STORE is an error
    PER_NODE_MEMORY_EXPANSION, //!< one FIFO pool per node of num-npus-per-node NPUs
    PER_NPU_MEMORY_EXPANSION,  //!< a private pool per NPU, no contention
    MEMORY_POOL                //!< one FIFO pool shared by every NPU
};

/// \return e.g. "MEMORY_POOL" \param t the type
const char* MemoryTypeName(MemoryType t);

struct RemoteMemoryConfig;

/**
 * \ingroup astra-sim
 * ASTRA-sim's analytical remote memory: time = latency + bytes / bandwidth,
 * with the contention of the memory type (MemoryType): NO_MEMORY_EXPANSION
 * (any access is an error), PER_NODE_MEMORY_EXPANSION (one FIFO per node of
 * NpusPerNode NPUs), PER_NPU_MEMORY_EXPANSION (private, no contention),
 * MEMORY_POOL (one FIFO shared by all).
 */
class AnalyticalRemoteMemory : public MemoryModel
{
  public:
    /// The memory types (one enum for the model and the configuration parser).
    using Type = MemoryType;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    void Access(uint32_t npu, uint64_t bytes, bool store, std::function<void()> done) override;
    std::string GetName() const override;
    void CheckNpuCount(uint32_t npus) const override;

    /**
     * Build from a remote-memory JSON file through the configuration parser
     * (ParseRemoteMemoryConfig in astra-config.h: unknown keys, a missing or
     * zero bandwidth of an expansion type, bad values are errors).
     * \param path the file
     * \return the model
     * \throw ConfigError naming the file and the key
     */
    static Ptr<AnalyticalRemoteMemory> FromFile(const std::string& path);
    /**
     * Build from a parsed remote-memory configuration.
     * \param c the configuration
     * \return the model
     */
    static Ptr<AnalyticalRemoteMemory> FromConfig(const RemoteMemoryConfig& c);
    /// \return the configured type
    MemoryType GetMemoryType() const;
    /// \param t the type (attribute MemoryType)
    void SetMemoryType(MemoryType t);

  private:
    /// MemoryType attribute setter \param t the type as an int
    void SetTypeValue(int t);
    /// MemoryType attribute getter \return the type as an int
    int GetTypeValue() const;

    MemoryType m_type{MemoryType::NO_MEMORY_EXPANSION};
    double m_latencyNs{0};
    double m_bwGBps{0};
    uint32_t m_npusPerNode{1};
    uint32_t m_numNodes{0};        //!< NumNodes (0: not checked)
    std::vector<Time> m_busyUntil; //!< per FIFO resource
    std::string m_source;
};

} // namespace astra
} // namespace ns3

#endif /* ASTRA_MEMORY_MODEL_H */
