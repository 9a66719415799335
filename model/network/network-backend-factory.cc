#include "network-backend-factory.h"

#include "analytical-backend.h"
#include "flow-backend.h"
#include "roce-backend.h"

#include "ns3/astra-diagnostics.h"
#include "ns3/astra-input.h"
#include "ns3/boolean.h"
#include "ns3/object-factory.h"

#include <sstream>
#include <stdexcept>

namespace ns3
{
namespace astra
{

namespace
{
/// One registered backend.
struct Entry
{
    std::string name;                              //!< user-facing name
    TypeId tid;                                    //!< its type
    NetworkBackendFactory::Attach attach{nullptr}; //!< topology attach, or null (needs a fabric)
    std::string description;                       //!< help text
};

/// Attach for the backends with a Compat attribute and SetTopology (analytical, flow).
template <class B>
void
AttachTopology(NetworkBackend& backend, std::shared_ptr<const Topology> topo, bool compat)
{
    auto& b = static_cast<B&>(backend);
    b.SetAttribute("Compat", BooleanValue(compat));
    b.SetTopology(std::move(topo));
}

std::vector<Entry>&
Entries()
{
    static std::vector<Entry> entries{
        {"analytical",
         AnalyticalBackend::GetTypeId(),
         &AttachTopology<AnalyticalBackend>,
         "congestion-unaware: latency + size / bandwidth per message"},
        {"flow",
         FlowBackend::GetTypeId(),
         &AttachTopology<FlowBackend>,
         "flow-level: max-min fair sharing of every link"},
        {"roce",
         RoceBackend::GetTypeId(),
         nullptr,
         "packet-level RoCEv2 (PFC, ECN, congestion control) on a fabric of ns-3 nodes"},
    };
    return entries;
}

const Entry&
Find(const std::string& name)
{
    for (const auto& e : Entries())
    {
        if (e.name == name)
        {
            return e;
        }
    }
    const std::vector<std::string> names = NetworkBackendFactory::GetNames();
    std::string known;
    for (const auto& n : names)
    {
        known += (known.empty() ? "" : ", ") + n;
    }
    throw InputError("unknown network backend '" + name + "'" + DidYouMean(name, names) +
                     " (known: " + known + ")");
}
} // namespace

void
NetworkBackendFactory::Register(const std::string& name,
                                TypeId tid,
                                Attach attach,
                                const std::string& description)
{
    if (!tid.IsChildOf(NetworkBackend::GetTypeId()) || !tid.HasConstructor())
    {
        throw std::invalid_argument("NetworkBackendFactory::Register: " + tid.GetName() +
                                    " is not a NetworkBackend with a constructor");
    }
    for (auto& e : Entries())
    {
        if (e.name == name)
        {
            e = Entry{name, tid, attach, description};
            return;
        }
    }
    Entries().push_back(Entry{name, tid, attach, description});
}

std::vector<std::string>
NetworkBackendFactory::GetNames()
{
    std::vector<std::string> names;
    for (const auto& e : Entries())
    {
        names.push_back(e.name);
    }
    return names;
}

std::string
NetworkBackendFactory::Describe()
{
    std::ostringstream os;
    for (const auto& e : Entries())
    {
        os << e.name << ": " << e.description << "\n";
    }
    return os.str();
}

void
NetworkBackendFactory::CheckName(const std::string& name)
{
    Find(name);
}

bool
NetworkBackendFactory::NeedsFabric(const std::string& name)
{
    return Find(name).attach == nullptr;
}

Ptr<NetworkBackend>
NetworkBackendFactory::Create(const std::string& name,
                              std::shared_ptr<const Topology> topo,
                              bool compat)
{
    const Entry& e = Find(name);
    ObjectFactory f;
    f.SetTypeId(e.tid);
    Ptr<NetworkBackend> b = f.Create<NetworkBackend>();
    if (e.attach)
    {
        e.attach(*b, std::move(topo), compat);
    }
    return b;
}

} // namespace astra
} // namespace ns3
