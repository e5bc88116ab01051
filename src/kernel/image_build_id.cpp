#include "kernel/image_build_id.hpp"

#include "format/elf_build_id.hpp"
#include "platform/file_input.hpp"

#include <memory>
#include <utility>

namespace openetw::kernel {

std::vector<std::uint8_t> read_file_build_id(const std::string &path)
{
    std::unique_ptr<platform::RandomAccessInput> in;
    if (!platform::open_file_input(path, in))
        return {};
    const std::uint64_t size = in->size();
    format::ElfBuildId id = format::elf_build_id(size, [&](std::uint64_t offset, std::span<std::uint8_t> out) {
        std::size_t got = 0;
        return static_cast<bool>(in->read_at(offset, out.data(), out.size(), got)) && got == out.size();
    });
    return id.result == format::ElfBuildId::Result::Found ? std::move(id.id) : std::vector<std::uint8_t>{};
}

BuildIdCache::BuildIdCache(BuildIdReader reader) : reader_(std::move(reader))
{
    if (!reader_)
        reader_ = read_file_build_id;
}

const std::vector<std::uint8_t> &BuildIdCache::get(const std::string &key, const std::string &path)
{
    auto [it, fresh] = ids_.try_emplace(key);
    if (fresh)
        it->second = reader_(path);
    return it->second;
}

} // namespace openetw::kernel
