// Where the real provider binaries the tests read are installed: the .NET
// SDK's Web Deploy tracing DLL, the Microsoft.CodeCoverage and
// Microsoft.Windows.SDK.BuildTools NuGet packages (any version). Microsoft's
// binaries are not part of the repository; a path is "" when not installed.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace provbin {

namespace fs = std::filesystem;

// The first existing root/package/<any version>/rest.
inline std::string find_installed(const std::vector<std::string> &roots, const std::string &package,
                                  const std::string &rest)
{
    for (const std::string &root : roots) {
        std::error_code ec;
        const fs::path dir = fs::path(root) / package;
        if (!fs::is_directory(dir, ec))
            continue;
        for (const auto &version : fs::directory_iterator(dir, ec))
            if (fs::is_regular_file(version.path() / rest, ec))
                return (version.path() / rest).string();
    }
    return {};
}

inline std::vector<std::string> nuget_roots()
{
    std::vector<std::string> roots;
    if (const char *n = std::getenv("NUGET_PACKAGES"))
        roots.push_back(n);
    if (const char *h = std::getenv("HOME"))
        roots.push_back(std::string(h) + "/.nuget/packages");
    roots.insert(roots.end(), {"/root/.nuget/packages", "/opt/nuget/packages"});
    return roots;
}

inline std::vector<std::string> dotnet_roots()
{
    std::vector<std::string> roots;
    if (const char *d = std::getenv("DOTNET_ROOT"))
        roots.push_back(d);
    roots.insert(roots.end(), {"/usr/share/dotnet", "/usr/lib/dotnet", "/opt/dotnet"});
    return roots;
}

// PE32, 3322-byte WEVT_TEMPLATE and a MESSAGETABLE.
inline std::string web_deploy()
{
    return find_installed(dotnet_roots(), "sdk",
                          "Sdks/Microsoft.NET.Sdk.Publish/tools/net472/Microsoft.Web.Deployment.Tracing.dll");
}

// rest: "amd64/covrun64.dll" (PE32+) or "covrun32.dll" (PE32).
inline std::string covrun(const char *rest)
{
    return find_installed(nuget_roots(), "microsoft.codecoverage",
                          std::string("build/netstandard2.0/CodeCoverage/") + rest);
}

// <root>/microsoft.windows.sdk.buildtools/<version>/bin/<sdk version>/x64/appxpackaging.dll
inline std::string appx()
{
    for (const std::string &root : nuget_roots()) {
        std::error_code ec;
        const fs::path dir = fs::path(root) / "microsoft.windows.sdk.buildtools";
        if (!fs::is_directory(dir, ec))
            continue;
        for (const auto &version : fs::directory_iterator(dir, ec))
            for (const auto &sdk : fs::directory_iterator(version.path() / "bin", ec)) {
                const fs::path p = sdk.path() / "x64" / "appxpackaging.dll";
                if (fs::is_regular_file(p, ec))
                    return p.string();
            }
    }
    return {};
}

// The smallest one present (the damaged-copy tests and the fuzz driver start from it).
inline std::string small_binary()
{
    const std::string w = web_deploy();
    return w.empty() ? covrun("amd64/covrun64.dll") : w;
}

} // namespace provbin
