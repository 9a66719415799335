/*
 * RdmaHostDirectory: the host stacks of one fabric by host index, the
 * simulator's out-of-band connection manager (what RDMA CM's address
 * resolution gives a real NIC). RdmaHostStack::GetOrCreateQp finds the
 * destination's stack here to create and connect both ends of a QP.
 *
 * One directory per fabric, created by the RdmaHelper that numbers the hosts
 * (so per simulation: a second fabric built after Simulator::Destroy has its
 * own). It holds plain pointers: a stack leaves its directory when disposed.
 */

#ifndef RDMA_HOST_DIRECTORY_H
#define RDMA_HOST_DIRECTORY_H

#include "ns3/object.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class RdmaHostStack;

/**
 * \ingroup astra-sim
 * Host stacks of one fabric, indexed by host index.
 *
 * \code
 * Ptr<RdmaHostDirectory> dir = CreateObject<RdmaHostDirectory>();
 * stackA->SetHostIndex(0);  stackA->SetDirectory(dir);
 * stackB->SetHostIndex(1);  stackB->SetDirectory(dir);
 * Ptr<RdmaQueuePair> qp = stackA->GetOrCreateQp(1);   // finds stackB in dir
 * \endcode
 * RdmaHelper::InstallHosts does this for the hosts it installs.
 */
class RdmaHostDirectory : public Object
{
  public:
    static TypeId GetTypeId(); //!< \return the TypeId
    RdmaHostDirectory();
    ~RdmaHostDirectory() override;

    /**
     * Register a stack under its host index (RdmaHostStack::SetDirectory calls it).
     * Throws astra::InputError if another stack already holds the index.
     * \param stack the stack
     */
    void Add(RdmaHostStack* stack);
    /// Forget a stack (no-op if it is not registered under its index) \param stack the stack
    void Remove(RdmaHostStack* stack);
    /// \return the stack of a host index (nullptr if none) \param hostIndex the index
    Ptr<RdmaHostStack> Find(uint32_t hostIndex) const;
    /// \return one past the highest host index registered so far
    uint32_t GetSize() const;
    /// \return the stack whose IPv4 address is ip (nullptr if none; set-up path) \param ip
    Ptr<RdmaHostStack> FindByIpv4(uint32_t ip) const;

    /**
     * Distributed run: this process is the logical process (ns-3 system id, MPI rank)
     * localSystemId. Stacks on nodes of another system id are remote: a QP to them
     * opens the local end only (RdmaHostStack, passive open).
     * \param localSystemId this process's system id
     */
    void SetLocalSystem(uint32_t localSystemId);
    bool IsDistributed() const; //!< \return true after SetLocalSystem
    /// \return true if the stack's node runs in this process \param stack the stack
    bool IsLocal(const RdmaHostStack* stack) const;

    /**
     * A host of another rank that has no stack in this process (partial build,
     * RdmaHelper::SetLocalSystem): what a QP's set-up needs of it, as RDMA CM would
     * exchange it (its address and initial PSN).
     * \param hostIndex its host index
     * \param ip its IPv4 address (host order)
     * \param initialPsn its first PSN
     */
    void AddRemote(uint32_t hostIndex, uint32_t ip, uint32_t initialPsn);
    /**
     * \return whether hostIndex is a host of another rank without a stack here
     * \param hostIndex the host index
     * \param [out] ip its IPv4 address
     * \param [out] initialPsn its first PSN
     */
    bool FindRemote(uint32_t hostIndex, uint32_t& ip, uint32_t& initialPsn) const;
    /**
     * \return whether ip is a host of another rank without a stack here (set-up path)
     * \param ip its IPv4 address
     * \param [out] hostIndex its host index
     * \param [out] initialPsn its first PSN
     */
    bool FindRemoteByIpv4(uint32_t ip, uint32_t& hostIndex, uint32_t& initialPsn) const;

  protected:
    void DoDispose() override;

  private:
    std::vector<RdmaHostStack*> m_stacks; //!< by host index (nullptr: none)

    /// A host of another rank without a stack here
    struct RemoteHost
    {
        uint32_t ip{0};         //!< IPv4 address (0: none)
        uint32_t initialPsn{0}; //!< first PSN
    };

    std::vector<RemoteHost> m_remote; //!< by host index
    bool m_distributed{false};        //!< SetLocalSystem was called
    uint32_t m_localSystem{0};        //!< this process's system id
};

} // namespace ns3

#endif /* RDMA_HOST_DIRECTORY_H */
