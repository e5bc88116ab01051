// Three real nats-servers clustered with JetStream on 127.0.0.1 for the
// fault tests: free client and route ports, a server name and a storage
// folder each under one temporary folder; a node can be killed (SIGKILL).
// Stopped and removed at the end. No mock.
#pragma once

#include "nats_server.hpp"

#include <nats/nats.h>

namespace natstest {

class NatsCluster {
public:
    static constexpr int kNodes = 3;

    NatsCluster()
    {
        static int n = 0;
        dir_ = (std::filesystem::temp_directory_path() /
                ("openetw-nats-cluster-" + std::to_string(getpid()) + "-" + std::to_string(n++)))
                   .string();
        std::filesystem::remove_all(dir_);
        for (Node &node : nodes_) {
            node.port = free_port();
            node.route_port = free_port();
            node.monitor_port = free_port();
        }
        for (int i = 0; i < kNodes; ++i)
            start(i);
    }
    ~NatsCluster()
    {
        for (Node &node : nodes_)
            stop(node, SIGTERM);
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }

    static std::string name_of(int i) { return "n" + std::to_string(i + 1); }
    int port(int i) const { return nodes_[i].port; }
    bool running(int i) const { return nodes_[i].pid > 0; }
    // nats://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3/STREAM: every node.
    std::string url(const std::string &stream) const
    {
        std::string u = "nats://";
        for (int i = 0; i < kNodes; ++i)
            u += (i ? ",127.0.0.1:" : "127.0.0.1:") + std::to_string(nodes_[i].port);
        return u + "/" + stream;
    }
    void kill9(int i) { stop(nodes_[i], SIGKILL); }
    // Starts a killed node again (its storage kept), once it says it is ready.
    void restart(int i) { start(i); }
    // The node's monitoring page at path (/connz, /jsz...): the HTTP
    // response's body, "" when the node does not answer.
    std::string monitor(int i, const std::string &path) const
    {
        const int s = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = htons(std::uint16_t(nodes_[i].monitor_port));
        std::string response;
        if (connect(s, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0) {
            const std::string request = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
            if (write(s, request.data(), request.size()) == ssize_t(request.size())) {
                char chunk[4096];
                for (ssize_t n; (n = read(s, chunk, sizeof chunk)) > 0;)
                    response.append(chunk, std::size_t(n));
            }
        }
        close(s);
        const std::size_t body = response.find("\r\n\r\n");
        return body == std::string::npos ? "" : response.substr(body + 4);
    }
    // The node a client of that name is connected to, or -1.
    int node_of_client(const std::string &client_name) const
    {
        for (int i = 0; i < kNodes; ++i)
            if (running(i) && monitor(i, "/connz").find("\"" + client_name + "\"") != std::string::npos)
                return i;
        return -1;
    }
    std::string log_text(int i) const
    {
        std::ifstream f(dir_ + "/" + name_of(i) + ".log");
        std::stringstream s;
        s << f.rdbuf();
        return s.str();
    }

private:
    struct Node {
        int port = 0;
        int route_port = 0;
        int monitor_port = 0;
        pid_t pid = -1;
    };

    void start(int i)
    {
        const std::string name = name_of(i);
        std::filesystem::create_directories(dir_ + "/" + name);
        std::string routes;
        for (int j = 0; j < kNodes; ++j)
            if (j != i)
                routes += (routes.empty() ? "" : ",") + std::string("nats://127.0.0.1:") +
                          std::to_string(nodes_[j].route_port);
        const std::size_t logged = log_text(i).size();
        Node &node = nodes_[i];
        node.pid = fork();
        if (node.pid == 0) {
            const int fd = open((dir_ + "/" + name + ".log").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
            dup2(fd, 1);
            dup2(fd, 2);
            std::vector<std::string> args = {"nats-server",
                                             "-js",
                                             "-sd",
                                             dir_ + "/" + name,
                                             "-n",
                                             name,
                                             "-a",
                                             "127.0.0.1",
                                             "-p",
                                             std::to_string(node.port),
                                             "--cluster_name",
                                             "openetw-test",
                                             "-cluster",
                                             "nats://127.0.0.1:" + std::to_string(node.route_port),
                                             "-routes",
                                             routes,
                                             "-m",
                                             std::to_string(node.monitor_port)};
            std::vector<char *> argv;
            for (std::string &a : args)
                argv.push_back(a.data());
            argv.push_back(nullptr);
            execvp("nats-server", argv.data());
            _exit(127);
        }
        for (int k = 0; k < 400; ++k) {
            if (log_text(i).find("Server is ready", logged) != std::string::npos)
                return;
            std::this_thread::sleep_for(std::chrono::milliseconds(25));
        }
        ADD_FAILURE() << "nats-server " << name << " did not get ready:\n" << log_text(i);
    }
    static void stop(Node &node, int sig)
    {
        if (node.pid <= 0)
            return;
        kill(node.pid, sig);
        int status = 0;
        waitpid(node.pid, &status, 0);
        node.pid = -1;
    }

    std::string dir_;
    Node nodes_[kNodes];
};

} // namespace natstest
